import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { LeadReturns } from '@lr/persistence';
import { mediumDataSource, returnsWorld, soldLead } from '../../../../test/support/medium-world';
import { importedLineText, importReturns, ImportedLine } from './import-returns';
import { leadReturnsOf } from '../../../../test/support/stored-rows';

/** `ops returns import` on the real PostgreSQL: each line booked as the buyer API books it, a report line per line, the same file twice changes nothing. */
describe('returns import (medium)', () => {
  let ds: DataSource;
  let world: Awaited<ReturnType<typeof returnsWorld>>;

  beforeAll(async () => {
    ds = await mediumDataSource(4);
    world = await returnsWorld(ds, [
      { payout: 12, price: 40, returns: { window_days: 7, reasons: ['wrong_number', 'not_the_person'] } },
      { price: 20 },
    ]);
  });
  afterAll(() => ds?.destroy());

  it("reports every line: returned, refused with the answer's code, invalid with what is wrong; a second import is all already returned", async () => {
    const [a, b, other] = [
      await soldLead(world, world.offerIds[0]),
      await soldLead(world, world.offerIds[0]),
      await soldLead(world, world.offerIds[1]),
    ];
    const school = world.schoolIds[0];
    const file = [
      'svc_lead_id,school_id,reason,note',
      `${a},${school},wrong_number,"said ""wrong number"", twice"`,
      `${b},${school},changed_mind,`,
      `${other},${world.schoolIds[1]},wrong_number,`,
      `${randomUUID()},${school},wrong_number,`,
      `not-a-lead,${school},wrong_number,`,
      `${b},${school}`,
      '',
    ].join('\r\n');
    const heard: Array<[number, number]> = [];
    const report = await importReturns(new LeadReturns(ds), file, (_l, done, total) => heard.push([done, total]));
    const brief = (l: ImportedLine) => [l.line, l.outcome, l.code, l.detail];
    expect(report.lines.map(brief)).toEqual([
      [2, 'returned', 'OK', 'returned (wrong_number)'],
      [3, 'refused', 'INVALID_FIELD', "reason must be one of the offer's return reasons: wrong_number, not_the_person"],
      [4, 'refused', 'RETURN_WINDOW_CLOSED', 'Offer accepts no returns'],
      [5, 'refused', 'NOT_FOUND', 'Lead not found'],
      [6, 'invalid', null, 'svc_lead_id "not-a-lead" is not a UUID'],
      [7, 'invalid', null, 'expected 4 fields, got 2'],
    ]);
    expect(report.totals).toEqual({ returned: 1, already_returned: 0, refused: 3, invalid: 2 });
    expect(heard).toEqual([
      [1, 6],
      [2, 6],
      [3, 6],
      [4, 6],
      [5, 6],
      [6, 6],
    ]);
    expect(importedLineText(report.lines[0])).toBe(`line 2: returned ${a} (wrong_number) at ${report.lines[0].returned_at}`);
    expect(importedLineText(report.lines[1])).toBe(
      `line 3: refused ${b}: INVALID_FIELD reason must be one of the offer's return reasons: wrong_number, not_the_person`,
    );
    const [row] = await leadReturnsOf(ds, a);
    expect(row).toEqual({ source: 'import', note: 'said "wrong number", twice', api_key_id: null, payout_reversal: '-12.00' });

    const again = await importReturns(new LeadReturns(ds), file, () => undefined);
    expect(again.lines[0]).toMatchObject({ line: 2, outcome: 'already_returned', code: 'ALREADY_RETURNED' });
    expect(await leadReturnsOf(ds, a)).toHaveLength(1);
  });

  it('refuses a file whose first line does not name the columns, importing nothing', async () => {
    await expect(importReturns(new LeadReturns(ds), 'lead,school,reason\nx,y,z', () => undefined)).rejects.toThrow(
      'line 1 must name the columns school_id, svc_lead_id, reason[, note]; missing: school_id, svc_lead_id; unknown: lead, school',
    );
    await expect(importReturns(new LeadReturns(ds), 'school_id,svc_lead_id,reason\n"x', () => undefined)).rejects.toThrow(
      'line 2: a quoted field is not closed',
    );
  });
});
