import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { DataSource } from 'typeorm';
import type { SubmitRequestedV1 } from '@lr/contracts';
import { createDataSource, ConsentLedger, migrateDatabase } from '@lr/persistence';
import { chainConsentLedger } from '@lr/jobs';
import { applyChanged, decideSubmit, freshPerson, resultSubmit, storeSearch, submitWorld, SubmitWorld } from '../../support/medium-world';
import { dropDatabase, ownDatabaseUrl } from '../../support/test-database';
import { TEST_DATABASE_URL } from '../../support/test-env';
import { opsIn } from '../ops/ops-test-support';
import { TEST_PERSON_KEY_SECRET } from '../../support/person-key';

/**
 * The consent ledger on the real PostgreSQL (docs/consent-ledger.md), in a
 * database of its own (this file breaks the chain on purpose): consent events
 * appended by checks' real use case under concurrency and redelivery, linked
 * by racing chainers, verified, exported and tampered with.
 */
const LEDGER_DB_URL = ownDatabaseUrl(TEST_DATABASE_URL, '_ledger');
const env = { NODE_ENV: 'test', DATABASE_URL: LEDGER_DB_URL, LOG_LEVEL: 'warn' };
const DAY_MS = 24 * 3600 * 1000;

let ds: DataSource;
let ledger: ConsentLedger;
let world: SubmitWorld;
const tmp = mkdtempSync(join(tmpdir(), 'lr-consent-'));

const chainNow = (now = new Date()) => chainConsentLedger(ledger, () => now);
const verify = (...args: string[]) => opsIn(env, ['consent', 'verify', '--json', ...args]);
const leadAt = async (position: number): Promise<string> =>
  (await ds.query('SELECT lead_id FROM consent_ledger WHERE position = $1', [position]))[0].lead_id as string;

beforeAll(async () => {
  await dropDatabase(LEDGER_DB_URL);
  await migrateDatabase(LEDGER_DB_URL, TEST_PERSON_KEY_SECRET);
  ds = createDataSource({ url: LEDGER_DB_URL, poolSize: 10, timeoutMs: 10_000, poolWaitMs: 60_000, genericPlans: true });
  await ds.initialize();
  ledger = new ConsentLedger(ds);
  world = await submitWorld(ds, [
    { tcpaText: 'I agree that Northfield may call and text me at the number I gave, also by autodialer.' },
    {},
    {},
  ]);
}, 60_000);

afterAll(async () => {
  await ds?.destroy();
  await dropDatabase(LEDGER_DB_URL);
  rmSync(tmp, { recursive: true, force: true });
});

describe('the consent ledger', () => {
  const submitted: SubmitRequestedV1[] = [];

  it('200 concurrent submits, linked by racing chainers, make one unbroken chain of 200 records', async () => {
    const searches = await Promise.all(
      Array.from({ length: 200 }, () => storeSearch(world, freshPerson(), { offerIds: [world.offerIds[1]] })),
    );
    submitted.push(...searches.map((s) => resultSubmit(world, s, world.offerIds[1])));
    let submitting = true;
    // Three chainers race the appends (checks' replicas): one link at a time, never a fork.
    const chainers = Array.from({ length: 3 }, async () => {
      while (submitting) {
        await chainNow();
        await new Promise((r) => setTimeout(r, 5));
      }
    });
    const outcomes = await Promise.all(submitted.map((m) => decideSubmit(ds).run(m)));
    submitting = false;
    await Promise.all(chainers);
    await chainNow();
    expect(outcomes.filter((o) => 'deliver' in o)).toHaveLength(200);

    const rows: Array<{ position: string; lead_id: string }> = await ds.query(
      'SELECT position, lead_id FROM consent_ledger ORDER BY position',
    );
    expect(rows.map((r) => Number(r.position))).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(new Set(rows.map((r) => r.lead_id))).toEqual(new Set(submitted.map((m) => m.leadId)));
    const run = await verify();
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      intact: true,
      range: { first: 1, last: 200 },
      checked: 200,
      head: 200,
      unchained: 0,
      break: null,
    });
    // Yesterday is due for a seal, but nothing was chained before it was over: no seal.
    expect(await ledger.seals()).toEqual([]);
  }, 120_000);

  it('a redelivered submit adds nothing; a test lead is not chained', async () => {
    const again = await decideSubmit(ds).run(submitted[17]);
    expect('deliver' in again).toBe(true); // a reserved lead goes to delivery again
    const test = await storeSearch(world, freshPerson(), { isTest: true, offerIds: [world.offerIds[1]] });
    const held = await decideSubmit(ds).run(resultSubmit(world, test, world.offerIds[1], { isTest: true }));
    expect('answer' in held && held.answer.kind === 'decision' && held.answer.decision.code).toBe('TEST_LEAD_HELD');
    await chainNow();
    expect((await ds.query('SELECT count(*)::int AS n FROM consent_ledger'))[0].n).toBe(200);
    expect((await ledger.summary()).head).toBe(200);
  });

  it("exports a person's three submits over two searches as a bundle that verifies offline, and fails when one byte changes", async () => {
    const person = freshPerson();
    const shown = 'I agree that Northfield may call and text me at the number I gave, also by autodialer.';
    const first = await storeSearch(world, person);
    // The catalog's statement changes after the search showed it: the record keeps the one shown.
    await applyChanged(world, world.offerIds[0], { tcpa_text: 'A later statement nobody saw.' });
    const second = await storeSearch(world, person, { offerIds: [world.offerIds[2]] });
    for (const m of [
      resultSubmit(world, first, world.offerIds[0]),
      resultSubmit(world, first, world.offerIds[1]),
      resultSubmit(world, second, world.offerIds[2], { consentButtonLabel: 'Yes, contact me' }),
    ]) {
      await decideSubmit(ds).run(m);
    }
    // Chained now, sealed as the next day's first chainer run seals it.
    await chainNow(new Date(Date.now() + DAY_MS));

    const out = join(tmp, 'bundle');
    const phone = person.personal!.phone!;
    // Written otherwise than stored: found through the same normalization as duplicates.
    const exported = await opsIn(env, [
      'consent',
      'export',
      '--phone',
      `+1 (${phone.slice(0, 3)}) ${phone.slice(3, 6)}-${phone.slice(6)}`,
      '--out',
      out,
    ]);
    expect(exported.code).toBe(0);
    const bundle = JSON.parse(readFileSync(join(out, 'consent-events.json'), 'utf8'));
    expect(bundle.events).toHaveLength(3);
    expect(new Set(bundle.events.map((e: { record: { search_id: string } }) => e.record.search_id))).toEqual(
      new Set([first.searchId, second.searchId]),
    );
    expect(bundle.events[0].record).toMatchObject({
      statement: shown,
      button_label: 'Request info',
      ip: '73.12.44.10',
      ip_source: 'consumer',
      tcpa_consent: true,
    });
    expect(bundle.events.every((e: { seal: unknown }) => e.seal !== null)).toBe(true);
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toContain(shown);

    const ok = await opsIn({}, ['consent', 'verify-bundle', out]);
    expect([ok.code, ok.stdout]).toEqual([0, expect.stringContaining('verifies: 3 consent events')]);

    // One byte changed anywhere: the check fails (offline: no DATABASE_URL at all).
    const files = listFiles(out);
    expect(files.length).toBe(8);
    for (const file of files) {
      const copy = join(tmp, `tampered-${files.indexOf(file)}`);
      cpSync(out, copy, { recursive: true });
      const bytes = readFileSync(join(copy, file));
      const at = Math.floor(bytes.length / 2);
      bytes[at] = bytes[at] === 0x31 ? 0x32 : 0x31;
      writeFileSync(join(copy, file), bytes);
      const run = await opsIn({}, ['consent', 'verify-bundle', copy]);
      expect([file, run.code]).toEqual([file, 1]);
    }

    // By email, written otherwise than stored (case, spaces): the same three events.
    const email = person.personal!.email!;
    const byEmail = await opsIn(env, ['consent', 'export', '--email', ` ${email.toUpperCase()} `, '--out', join(tmp, 'by-email')]);
    expect(byEmail.code).toBe(0);
    const emailEvents = JSON.parse(readFileSync(join(tmp, 'by-email', 'consent-events.json'), 'utf8')).events as Array<{ lead_id: string }>;
    expect(emailEvents.map((e) => e.lead_id)).toEqual(bundle.events.map((e: { lead_id: string }) => e.lead_id));

    const byLead = await opsIn(env, ['consent', 'export', '--lead', bundle.events[2].lead_id, '--out', join(tmp, 'by-lead')]);
    expect(byLead.code).toBe(0);
    expect(JSON.parse(readFileSync(join(tmp, 'by-lead', 'consent-events.json'), 'utf8')).events).toHaveLength(3);
  }, 60_000);

  it('names a record whose statement was edited in PostgreSQL', async () => {
    const lead = await leadAt(50);
    await ds.query(`UPDATE consent_evidence SET tcpa_text = tcpa_text || ' (edited)' WHERE lead_id = $1`, [lead]);
    const run = await verify();
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).break).toMatchObject({ position: 50, svc_lead_id: lead, problem: 'record-changed' });
    expect(run.stderr).toContain(`position 50 (svc_lead_id ${lead})`);
    // A window: the records chained in it are checked (the edit is found), a window after every record checks none.
    const hour = 3600_000;
    const inWindow = await verify('--from', new Date(Date.now() - hour).toISOString(), '--to', new Date(Date.now() + hour).toISOString());
    expect([inWindow.code, JSON.parse(inWindow.stdout).break]).toEqual([
      1,
      expect.objectContaining({ position: 50, problem: 'record-changed' }),
    ]);
    const after = await verify('--from', new Date(Date.now() + hour).toISOString());
    expect([after.code, JSON.parse(after.stdout)]).toEqual([0, expect.objectContaining({ checked: 0, break: null })]);
    expect((await verify('--from', new Date(Date.now() + hour).toISOString(), '--to', new Date().toISOString())).code).toBe(2);
    await ds.query(`UPDATE consent_evidence SET tcpa_text = left(tcpa_text, -length(' (edited)')) WHERE lead_id = $1`, [lead]);
    expect((await verify()).code).toBe(0);
  });

  it('names a deleted record', async () => {
    const [row] = await ds.query('SELECT * FROM consent_ledger WHERE position = 60');
    await ds.query('DELETE FROM consent_ledger WHERE seq = $1', [row.seq]);
    const run = await verify();
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).break).toMatchObject({ position: 60, problem: 'missing' });
    expect(JSON.parse(run.stdout).break.detail).toContain(`from position 59 to 61 (lead ${await leadAt(61)})`);
    const columns = Object.keys(row);
    await ds.query(
      `INSERT INTO consent_ledger (${columns.join(', ')}) OVERRIDING SYSTEM VALUE VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
      columns.map((c) => row[c]),
    );
    expect((await verify()).code).toBe(0);
  });

  it('names a reordered record', async () => {
    const swap = async () => {
      await ds.query('UPDATE consent_ledger SET position = 1000070 WHERE position = 70');
      await ds.query('UPDATE consent_ledger SET position = 70 WHERE position = 71');
      await ds.query('UPDATE consent_ledger SET position = 71 WHERE position = 1000070');
    };
    await swap();
    const run = await verify();
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).break).toMatchObject({ position: 70, svc_lead_id: await leadAt(70), problem: 'link-broken' });
    await swap();
    expect((await verify()).code).toBe(0);
  });

  it('names records removed from the end after they were sealed', async () => {
    const [sealed] = await ds.query('SELECT count FROM consent_seals ORDER BY count DESC LIMIT 1');
    const [row] = await ds.query('SELECT * FROM consent_ledger WHERE position = $1', [sealed.count]);
    await ds.query('DELETE FROM consent_ledger WHERE seq = $1', [row.seq]);
    const run = await verify();
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).break).toMatchObject({ position: Number(sealed.count), problem: 'missing' });
  });
});

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => statSync(join(dir, f)).isFile())
    .map((f) => relative(dir, join(dir, f)))
    .sort();
}
