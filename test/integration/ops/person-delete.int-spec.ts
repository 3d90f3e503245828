import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { buyerDecision, cents, eraseLeadDocument, newLeadId } from '@lr/domain';
import { openedRow } from '../../support/sealed-rows';
import {
  addDays,
  ConsentLedger,
  createDataSource,
  createDayPartitions,
  dayOf,
  daySuffix,
  KEPT_DAY,
  LeadReturns,
  LEGACY_DAY,
  migrateDatabase,
  PartitionStore,
  SaleLedger,
  SearchRepository,
} from '@lr/persistence';
import { chainConsentLedger } from '@lr/jobs';
import { returnLead } from '@lr/use-cases';
import { searchStateKey, SearchStatePublisher } from '@lr/search-state';
import { tablesHolding } from '../../support/canaries';
import { decideSubmit, freshPerson, resultSubmit, returnsWorld, StoredSearch, storeSearch, SubmitWorld } from '../../support/medium-world';
import { dropDatabase, ownDatabaseUrl } from '../../support/test-database';
import { TEST_DATABASE_URL, TEST_REDIS_URL, testEnv, uniqueSuffix } from '../../support/test-env';
import { opsIn } from './ops-test-support';
import { TEST_PERSON_KEY_SECRET } from '../../support/person-key';

/**
 * `ops person delete` on the real PostgreSQL and Redis: a person's searches
 * in four partitions (today's, one of five days ago holding a test search,
 * the kept partition, the legacy one), their leads in every state (sold,
 * refused by a buyer quoting them, refused without consent, a held test
 * lead), consent evidence chained and sealed, search states in Redis; a
 * bystander's records beside them. On a database of its own: `consent
 * verify` checks the whole chain, and no table may hold the person.
 */
const dbUrl = ownDatabaseUrl(TEST_DATABASE_URL, '_deletion');
const suffix = uniqueSuffix();
const env = testEnv(suffix, { DATABASE_URL: dbUrl });
const ops = (...args: string[]) => opsIn(env, args);
const DAY_MS = 24 * 3600 * 1000;

let ds: DataSource;
let redis: Redis;
let world: SubmitWorld;
const person = freshPerson();
const bystander = freshPerson();
const p = person.personal!;
/** What must be gone: the values no other person of this database shares. */
const canaries = [p.email!, p.phone!, p.last_name!];
const searches: Record<string, StoredSearch> = {};
const leads: Record<string, string> = {};
const bundleDir = join(tmpdir(), `lr-deletion-${suffix}`);
const formatted = `+1 (${p.phone!.slice(0, 3)}) ${p.phone!.slice(3, 6)}-${p.phone!.slice(6)}`;

/** The rows that hold no contact data and must not change, in a stable order. */
async function keptRows(): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of [
    ['sales', 'lead_id'],
    ['dedupe_keys', 'lead_id, key_type'],
    ['cap_usage', 'scope, period, period_start'],
    ['consent_ledger', 'seq'],
    ['consent_seals', 'day'],
    ['result_templates', 'part_day, digest'],
    ['lead_returns', 'lead_id'],
  ]) {
    // A return's note is the school's words: masked, the rest of the return (its reversals) kept.
    out[table] = ((await ds.query(`SELECT to_jsonb(t) - 'note' AS row FROM ${table} t ORDER BY ${order}`)) as Array<{ row: unknown }>).map(
      (r) => r.row,
    );
  }
  out.live_consent_evidence = (
    await ds.query(
      `SELECT to_jsonb(c) AS row FROM consent_evidence c JOIN leads l ON l.id = c.lead_id WHERE NOT l.is_test ORDER BY c.lead_id`,
    )
  ).map((r: { row: unknown }) => r.row);
  out.offer_decisions = (await ds.query(
    `SELECT id, offer_decisions, person_keys, result_order, result_templates FROM searches ORDER BY id`,
  )) as unknown[];
  return out;
}

async function everything(): Promise<unknown[]> {
  const tables = (await ds.query(
    `SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r' ORDER BY relname`,
  )) as Array<{ relname: string }>;
  const out: unknown[] = [];
  for (const { relname } of tables) out.push([relname, await ds.query(`SELECT t::text AS row FROM "${relname}" t ORDER BY 1`)]);
  return out;
}

const reportJson = async () =>
  JSON.parse(
    (
      await ops(
        'report',
        '--from',
        addDays(dayOf(new Date()), -20),
        '--to',
        addDays(dayOf(new Date()), 2),
        '--by',
        'campaign',
        '--include-test',
        '--json',
      )
    ).stdout,
  );

beforeAll(async () => {
  await dropDatabase(dbUrl);
  await migrateDatabase(dbUrl, TEST_PERSON_KEY_SECRET);
  ds = createDataSource({ url: dbUrl, poolSize: 6, timeoutMs: 10_000, poolWaitMs: 30_000 });
  await ds.initialize();
  redis = new Redis(TEST_REDIS_URL, { keyPrefix: env.REDIS_KEY_PREFIX, maxRetriesPerRequest: 1 });
  const returns = await returnsWorld(ds, [{ returns: { window_days: 30, reasons: ['wrong_number'] } }, {}, {}, {}]);
  world = returns;
  const [o1, o2, o3, o4] = world.offerIds;
  const now = Date.now();
  const fiveDaysAgo = now - 5 * DAY_MS;
  const twelveDaysAgo = now - 12 * DAY_MS;
  for (const at of [fiveDaysAgo, twelveDaysAgo])
    await createDayPartitions(ds, { from: dayOf(new Date(at)), to: null, suffix: daySuffix(dayOf(new Date(at))) });

  // Today's partition, five days ago (a test search), twelve days ago (moved to the kept partition below), the legacy one (an id
  // without a time). An id's time picks the partition; the results are shown now, so that they can be submitted.
  searches.today = await storeSearch(world, person, { searchId: newLeadId(now) });
  searches.test = await storeSearch(world, person, { isTest: true, searchId: newLeadId(fiveDaysAgo) });
  searches.kept = await storeSearch(world, person, { searchId: newLeadId(twelveDaysAgo) });
  searches.legacy = await storeSearch(world, person, { offerIds: [o3] });
  searches.bystander = await storeSearch(world, bystander, { searchId: newLeadId(now) });
  searches.bystanderTest = await storeSearch(world, bystander, { isTest: true, searchId: newLeadId(now) });

  const ledger = new SaleLedger(ds);
  const reserve = async (s: StoredSearch, offerId: string) => {
    const msg = resultSubmit(world, s, offerId);
    const outcome = await decideSubmit(ds).run(msg);
    if (!('deliver' in outcome)) throw new Error(`not reserved: ${JSON.stringify(outcome.answer)}`);
    await ledger.claimAttempt(msg.leadId);
    return msg.leadId;
  };
  const settle = (leadId: string, outcome: 'accepted' | 'rejected', detail: string) =>
    ledger.settle({
      leadId,
      outcome,
      decision: buyerDecision(outcome),
      attempt: { httpStatus: 200, latencyMs: 12, detail },
      payout: outcome === 'accepted' ? cents('20.00') : null,
      endsOtherSales: false,
    });

  leads.accepted = await reserve(searches.today, o1);
  await settle(leads.accepted, 'accepted', 'buyer lead id 4711');
  // The school returns it later with a note in its own words, quoting the person.
  const returned = await returnLead(new LeadReturns(ds), {
    leadId: leads.accepted,
    schoolId: returns.schoolIds[0],
    reason: 'wrong_number',
    note: `wrong number: ${p.last_name} at ${formatted}`,
    source: 'import',
    apiKeyId: null,
  });
  expect(returned.kind).toBe('returned');
  // The buyer refuses quoting the person back: their words are kept for operators, the person's values masked.
  leads.rejected = await reserve(searches.today, o2);
  await settle(leads.rejected, 'rejected', `Already enrolled: ${p.first_name} ${p.last_name} <${p.email}>, call ${formatted}`);
  leads.keptAccepted = await reserve(searches.kept, o4);
  await settle(leads.keptAccepted, 'accepted', 'buyer lead id 4712');
  leads.bystander = await reserve(searches.bystander, o1);
  await settle(leads.bystander, 'accepted', 'buyer lead id 4713');
  // No consent decision: refused, stored without evidence and without a consent event (found by scanning the leads the ledger lacks).
  const noConsent = resultSubmit(world, searches.legacy, o3, { tcpaConsent: null });
  await decideSubmit(ds).run(noConsent);
  leads.noConsent = noConsent.leadId;
  const held = resultSubmit(world, searches.test, o1, { isTest: true });
  await decideSubmit(ds).run(held);
  leads.testHeld = held.leadId;

  // The twelve-day-old search is named by a lead: the retention's step moves it to the kept partition.
  const old = dayOf(new Date(twelveDaysAgo));
  expect((await new PartitionStore(ds).keepSubmitted(old, addDays(old, 1))).searches).toBe(1);
  // Chained and sealed (today's seal, as tomorrow's first chainer run makes it).
  await chainConsentLedger(new ConsentLedger(ds), () => new Date(now + DAY_MS));

  const publisher = new SearchStatePublisher(redis, new SearchRepository(ds));
  for (const s of [searches.today, searches.test, searches.bystander]) await publisher.resync(s.searchId);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await ds?.destroy();
  await dropDatabase(dbUrl);
  rmSync(bundleDir, { recursive: true, force: true });
});

describe('ops person delete', () => {
  let before: Record<string, unknown[]>;
  let reportBefore: unknown;

  it('finds every record of the person before (the setup is what the test says)', async () => {
    const partDays = (await ds.query(`SELECT id, part_day::text AS day FROM searches WHERE id = ANY($1::uuid[])`, [
      Object.values(searches).map((s) => s.searchId),
    ])) as Array<{ id: string; day: string }>;
    const dayOfSearch = new Map(partDays.map((r) => [r.id, r.day]));
    expect(dayOfSearch.get(searches.kept.searchId)).toBe(KEPT_DAY);
    expect(dayOfSearch.get(searches.legacy.searchId)).toBe(LEGACY_DAY);
    expect(dayOfSearch.get(searches.test.searchId)).toBe(dayOf(new Date(Date.now() - 5 * DAY_MS)));
    const partition = (at: number) => `searches_${daySuffix(dayOf(new Date(at)))}`;
    expect(Object.keys(await tablesHolding(ds, canaries)).sort()).toEqual(
      [
        'delivery_attempts',
        'lead_returns',
        // Leads are stored by checks with their contact data sealed (their rows are opened to be found and erased).
        'searches_kept',
        'searches_legacy',
        partition(Date.now() - 5 * DAY_MS),
        partition(Date.now()),
      ].sort(),
    );
    expect(await redis.exists(searchStateKey(searches.today.searchId), searchStateKey(searches.test.searchId))).toBe(2);
    before = await keptRows();
    reportBefore = await reportJson();
  });

  it('a dry run counts what a run erases and changes nothing', async () => {
    const all = await everything();
    const run = await ops('person', 'delete', '--phone', formatted, '--dry-run', '--json');
    expect(run.code).toBe(0);
    const r = JSON.parse(run.stdout);
    expect(r).toMatchObject({
      dry_run: true,
      request: { id: null, recorded_now: false },
      erased: { searches: { count: 4 }, leads: { count: 5 }, redis_keys: 2 },
    });
    const text = await ops('person', 'delete', '--phone', formatted, '--dry-run');
    expect(text.stdout).toMatch(/^Person delete dry run \(nothing changed\), by phone: no deletion request recorded yet/m);
    expect(text.stdout).toMatch(/^ {2}searches +4 +3 live, 1 test/m);
    expect(text.stdout).toMatch(/^ {2}leads +5/m);
    expect(text.stdout).toMatch(
      /^Kept under a legal obligation: the consent evidence of 3 leads, whole \(the consent record: tcpa_consent, statement/m,
    );
    expect(await everything()).toEqual(all);
    expect(await redis.exists(searchStateKey(searches.today.searchId))).toBe(1);
  });

  it("erases the person's contact data from searches in every partition, leads, delivery details and Redis, and says what it did", async () => {
    const run = await ops('person', 'delete', '--phone', formatted, '--reference', 'DROP-2026-11-0042', '--json');
    expect(run.code).toBe(0);
    for (const c of canaries) expect(`${run.stdout}${run.stderr}`.toLowerCase()).not.toContain(c.toLowerCase());
    expect(run.stderr).toMatch(/person delete: \d+\/\d+ places searched/);
    const r = JSON.parse(run.stdout);
    expect(r).toMatchObject({
      dry_run: false,
      keys: ['phone'],
      request: { recorded_now: true, suppressed: 1, notices: 2 },
      erased: {
        searches: { count: 4, live: 3, test: 1 },
        leads: { count: 5 },
        delivery_attempt_details: 1,
        return_notes: 1,
        consent_evidence_ips: 1,
        redis_keys: 2,
      },
      kept: {
        consent_evidence: 3,
        consent_evidence_fields: [
          'tcpa_consent',
          'statement',
          'button_label',
          'ip',
          'consented_at',
          'form_cert_url',
          'universal_lead_cert',
        ],
      },
      nothing_new: false,
    });
    expect(new Set(r.erased.searches.ids)).toEqual(new Set(['today', 'test', 'kept', 'legacy'].map((k) => searches[k].searchId)));
    expect(new Set(r.erased.leads.ids)).toEqual(
      new Set(['accepted', 'rejected', 'keptAccepted', 'noConsent', 'testHeld'].map((k) => leads[k])),
    );

    // No table or partition holds the person's email, phone or name any more.
    expect(await tablesHolding(ds, canaries)).toEqual({});
    // Redis: the person's search states are gone, the bystander's stays.
    expect(await redis.exists(searchStateKey(searches.today.searchId), searchStateKey(searches.test.searchId))).toBe(0);
    expect(await redis.exists(searchStateKey(searches.bystander.searchId))).toBe(1);

    // The hashed suppression entry and the request, with its reference.
    const [request] = await ds.query(`SELECT source, reference, phone_key, email_key FROM opt_outs WHERE id = $1`, [r.request.id]);
    expect(request).toMatchObject({ source: 'deletion', reference: 'DROP-2026-11-0042', email_key: null });
    expect((await ds.query(`SELECT count(*)::int AS n FROM suppressions WHERE opt_out_id = $1`, [r.request.id]))[0].n).toBe(1);
  });

  it('keeps what holds no contact data: sales, payouts, caps, dedupe hashes, offer decisions, the consent ledger and live evidence; reports add up as before', async () => {
    expect(await keptRows()).toEqual(before);
    expect(await reportJson()).toEqual(reportBefore);
    const [lead] = await ds.query(`SELECT lead, tracking, consumer_ip, ip_source FROM leads WHERE id = $1`, [leads.accepted]);
    expect(lead).toEqual({ lead: eraseLeadDocument(person), tracking: { subid: 'medium' }, consumer_ip: '', ip_source: 'consumer' });
    const [attempt] = await ds.query(`SELECT outcome, detail FROM delivery_attempts WHERE lead_id = $1`, [leads.rejected]);
    expect(attempt).toEqual({ outcome: 'rejected', detail: `Already enrolled: [erased] [erased] <[erased]>, call [erased]` });
    const [returned] = await ds.query(`SELECT reason, note FROM lead_returns WHERE lead_id = $1`, [leads.accepted]);
    expect(returned).toEqual({ reason: 'wrong_number', note: 'wrong number: [erased] at [erased]' });
    const [test] = await ds.query(`SELECT ip, tcpa_text, button_label FROM consent_evidence WHERE lead_id = $1`, [leads.testHeld]);
    expect(test).toMatchObject({ ip: '', button_label: 'Request info' });
    // An erased search's results cannot be submitted any more.
    const [expired] = await ds.query(
      `SELECT bool_and(e <= now()) AS all_expired FROM searches s, unnest(s.result_expires) e WHERE s.id = $1`,
      [searches.today.searchId],
    );
    expect(expired.all_expired).toBe(true);
    // The bystander's records are as they were.
    // (stored sealed: its data key was not destroyed, so it opens as it was sent)
    const other = (await openedRow(ds, 'leads', leads.bystander, dbUrl))!;
    expect({ lead: other.lead, consumer_ip: other.consumer_ip }).toEqual({ lead: bystander, consumer_ip: '73.12.44.10' });
    expect(Object.keys(await tablesHolding(ds, [bystander.personal!.email!])).length).toBeGreaterThan(0);
  });

  it('leaves the consent ledger valid: consent verify recomputes every record, and export still finds the events by the hash', async () => {
    const run = await ops('consent', 'verify', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ intact: true, checked: 4, break: null });
    const bundle = await ops('consent', 'export', '--phone', p.phone!, '--out', bundleDir);
    expect(bundle.code).toBe(0);
    expect(bundle.stdout).toMatch(/3 consent events/);
  });

  it('a second run erases nothing new and says so; a run by the email records the email, erases nothing', async () => {
    const again = await ops('person', 'delete', '--phone', p.phone!);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/recorded before/);
    expect(again.stdout).toMatch(/Nothing new to erase/);
    const json = JSON.parse((await ops('person', 'delete', '--phone', p.phone!, '--json')).stdout);
    expect(json).toMatchObject({
      nothing_new: true,
      request: { recorded_now: false },
      erased: { searches: { count: 0 }, leads: { count: 0 }, redis_keys: 0 },
    });

    const byEmail = JSON.parse((await ops('person', 'delete', '--email', p.email!.toUpperCase(), '--json')).stdout);
    expect(byEmail).toMatchObject({ nothing_new: true, request: { recorded_now: true, suppressed: 1, notices: 0 } });
    expect(await tablesHolding(ds, canaries)).toEqual({});
    expect((await ops('consent', 'verify')).code).toBe(0);
  });

  it('refuses a command line that names nobody, or a value it cannot normalize, without repeating it', async () => {
    expect((await ops('person', 'delete')).code).toBe(2);
    const bad = await ops('person', 'delete', '--phone', '555-0147-secret');
    expect(bad.code).toBe(2);
    expect(bad.stderr).not.toContain('secret');
    expect((await ops('person', 'delete', '--hashed-email', 'abc')).code).toBe(2);
    const twice = await ops('person', 'delete', '--email', 'a@example.com', '--email', 'b@example.com');
    expect([twice.code, twice.stderr]).toEqual([2, expect.stringContaining('--email given 2 times')]);
    expect(twice.stderr).not.toContain('example.com');
  });
});
