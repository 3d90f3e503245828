import type { DataSource } from 'typeorm';
import { returnVerdict } from '@lr/domain';
import { LeadReturns, StatementParty } from '@lr/persistence';
import { mediumDataSource, returnsWorld, seedAcceptedLeads, soldLead } from '../../../../test/support/medium-world';
import { activityReport } from '../report/activity-report';
import { writeStatement } from './account-statement';
import { StatementFormat } from './statement-writers';

/**
 * `ops statement` on the real PostgreSQL: exact decimal end to end (10,000
 * payouts of 0.10 are 1000.00), the same accepted leads and payouts as `ops
 * report` for the window, and returns reversing the amounts they took back.
 */
describe('account statement (medium)', () => {
  let ds: DataSource;
  let world: Awaited<ReturnType<typeof returnsWorld>>;
  const day = { from: new Date('2026-10-01T00:00:00Z'), to: new Date('2026-10-02T00:00:00Z') };

  beforeAll(async () => {
    ds = await mediumDataSource(4);
    world = await returnsWorld(ds, [{ payout: 0.1, price: 0.35, returns: { window_days: 7, reasons: ['wrong_number'] } }]);
    // 10,000 leads received on 2026-10-01, one a second, each with a payout of 0.10.
    await seedAcceptedLeads(ds, {
      campaignId: world.campaignId,
      offerId: world.offerIds[0],
      count: 10_000,
      payout: '0.10',
      from: day.from,
      stepMs: 1000,
    });
  });
  afterAll(() => ds?.destroy());

  const statement = async (party: StatementParty, from: Date, to: Date, format: StatementFormat = 'json') => {
    const out: string[] = [];
    const totals = await writeStatement(ds, { party, from, to }, format, (lines) => out.push(lines));
    return { totals, text: out.join('\n') };
  };

  it('10,000 payouts of 0.10 add up to exactly 1000.00, and to what ops report says for the window', async () => {
    const { text } = await statement({ affiliateId: world.affiliateId }, day.from, day.to);
    const json = JSON.parse(text);
    expect(json.accepted).toHaveLength(10_000);
    expect(json.accepted[0]).toEqual({
      svc_lead_id: expect.any(String),
      offer_id: world.offerIds[0],
      campaign_id: world.campaignId,
      received_at: '2026-10-01T00:00:00.000Z',
      accepted_at: '2026-10-01T00:00:01.000Z',
      amount: '0.10',
    });
    expect(json.totals).toEqual({ accepted: 10_000, gross: '1000.00', returns: 0, returned: '0.00', net: '1000.00' });
    const report = await activityReport(ds, { ...day, by: 'affiliate', includeTest: false, affiliateId: world.affiliateId });
    expect([report.totals.accepted, report.totals.payouts.toFixed(2)]).toEqual([json.totals.accepted, json.totals.gross]);
  });

  it('a return booked in the window reverses the payout (affiliate) and the price (school); net = gross + returns', async () => {
    const from = new Date(Date.now() - 3600_000);
    const sold = [await soldLead(world, world.offerIds[0]), await soldLead(world, world.offerIds[0])];
    const q = { leadId: sold[0], schoolId: world.schoolIds[0], reason: 'wrong_number', note: null, source: 'api' as const, apiKeyId: null };
    expect(await new LeadReturns(ds).returnLead(q, (f) => returnVerdict(f, q.reason))).toMatchObject({ kind: 'returned' });
    const to = new Date(Date.now() + 60_000);

    const affiliate = JSON.parse((await statement({ affiliateId: world.affiliateId }, from, to)).text);
    expect(affiliate.totals).toEqual({ accepted: 2, gross: '0.20', returns: 1, returned: '-0.10', net: '0.10' });
    expect(affiliate.returns).toEqual([
      expect.objectContaining({
        svc_lead_id: sold[0],
        offer_id: world.offerIds[0],
        campaign_id: world.campaignId,
        reason: 'wrong_number',
        amount: '-0.10',
      }),
    ]);
    const report = await activityReport(ds, { from, to, by: 'affiliate', includeTest: false, affiliateId: world.affiliateId });
    expect([report.totals.accepted, report.totals.payouts.toFixed(2)]).toEqual([2, '0.20']);

    const school = JSON.parse((await statement({ schoolId: world.schoolIds[0] }, from, to)).text);
    expect([school.party, school.amount]).toEqual([{ school_id: world.schoolIds[0] }, 'price']);
    expect(school.totals).toEqual({ accepted: 2, gross: '0.70', returns: 1, returned: '-0.35', net: '0.35' });
    expect(school.accepted[0]).not.toHaveProperty('campaign_id');

    const csv = (await statement({ affiliateId: world.affiliateId }, from, to, 'csv')).text.split('\n');
    expect(csv[0]).toBe('entry,svc_lead_id,offer_id,campaign_id,received_at,at,reason,amount,count');
    expect(csv.filter((l) => l.startsWith('accepted,'))).toHaveLength(2);
    expect(csv.filter((l) => l.startsWith('return,'))).toEqual([
      expect.stringMatching(new RegExp(`^return,${sold[0]},.*,wrong_number,-0\\.10,$`)),
    ]);
    expect(csv.slice(-3)).toEqual(['gross,,,,,,,0.20,2', 'returns,,,,,,,-0.10,1', 'net,,,,,,,0.10,']);
  });

  it('an empty window is a statement of zeros, in both formats', async () => {
    const from = new Date('2020-01-01T00:00:00Z');
    const to = new Date('2020-01-02T00:00:00Z');
    expect(JSON.parse((await statement({ schoolId: world.schoolIds[0] }, from, to)).text)).toEqual({
      party: { school_id: world.schoolIds[0] },
      amount: 'price',
      from: from.toISOString(),
      to: to.toISOString(),
      accepted: [],
      returns: [],
      totals: { accepted: 0, gross: '0.00', returns: 0, returned: '0.00', net: '0.00' },
    });
    expect((await statement({ schoolId: world.schoolIds[0] }, from, to, 'csv')).text.split('\n')).toEqual([
      'entry,svc_lead_id,offer_id,received_at,at,reason,amount,count',
      'gross,,,,,,0.00,0',
      'returns,,,,,,0.00,0',
      'net,,,,,,0.00,',
    ]);
  });
});
