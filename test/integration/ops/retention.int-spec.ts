import { createHash, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { v7 } from 'uuid';
import type { Lead } from '../../../libs/domain/src';
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
  searchDays,
} from '@lr/persistence';
import { chainConsentLedger } from '@lr/jobs';
import { migrateDatabase } from '../../../libs/persistence/src/migrate';
import { runOps } from '../../support/ops';
import { dropDatabase, ownDatabaseUrl } from '../../support/test-database';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../../support/test-env';
import { LeadActivitySeed, opsOwnOffer } from './lead-activity-seed';
import { opsIn } from './ops-test-support';
import { campaign } from '../../support/catalog-builder';
import { TEST_PERSON_KEY_SECRET } from '../../support/person-key';

/**
 * `ops retention run` and `ops storage report` on searches written in the day
 * layout (migration BoundedSearchStorage): searches seeded straight into old
 * day partitions and into the legacy partition, some named by leads in every
 * status (accepted with a sale and a payout, pending, rejected by the buyer,
 * refused days after the search), some not; handled-message records old and
 * new. The run must keep every search a lead names, with its results and
 * partner calls, drop everything else past the window, and leave the leads,
 * sales and consent evidence as they were.
 *
 * Retention drops partitions of the whole database and empties the legacy
 * partition, which would take other test files' rows with it: this file runs
 * on a database of its own (the test database's name + `_retention`).
 */
/** A day of `retention run --json` (snake_case), as far as these tests read it. */
interface RetentionDayJson {
  family: string;
  day: string;
  kept: { searches: number } | null;
  partitions: PartitionJson[];
}
/** A partition as `retention run --json` and `storage report --json` print it. */
interface PartitionJson {
  table: string;
  name: string;
  day: string;
  rows: number;
  bytes: number;
  ms: number | null;
}
/** A table of `storage report --json`. */
interface TableJson {
  table: string;
  bytes: number;
}

describe('ops retention run and storage report', () => {
  const dbUrl = ownDatabaseUrl(TEST_DATABASE_URL, '_retention');
  const env = testEnv(uniqueSuffix(), { DATABASE_URL: dbUrl });
  const ops = (...args: string[]) => opsIn(env, args);
  let ds: DataSource;

  const today = dayOf(new Date());
  /** Past the 30-day window (a day D goes when D < today - 30), on its edge (kept), and recent. */
  const days = { old: addDays(today, -40), older: addDays(today, -31), edge: addDays(today, -30), recent: addDays(today, -10) };
  const ids = {
    aff: randomUUID(),
    camp: randomUUID(),
    school: randomUUID(),
    offer: randomUUID(),
    offer2: randomUUID(),
    partner: randomUUID(),
  };
  const person = (n: number): Lead => ({
    personal: {
      first_name: 'Retained',
      last_name: `Person${'abcdefghij'[n]}`,
      email: `retained.${n}@example.com`,
      phone: `51255502${String(n).padStart(2, '0')}`,
    },
    address: { state: 'TX', zip_code: '75001' },
    education: { education_level: 'associate' },
  });

  /** The searches seeded, by name: the ones a lead names and the ones none does. */
  const s: Record<string, { id: string; day: string; resultIds: string[] }> = {};
  const named = ['acceptedOld', 'pendingOld', 'rejectedOld', 'lateOld', 'acceptedOlder', 'acceptedLegacy', 'recentNamed'];
  const unnamedExpired = ['plainOld', 'plainOld2', 'plainOlder', 'plainLegacy'];
  const untouched = ['edge', 'recentNamed', 'recentPlain'];
  let apiKeyId: string;
  type ByName = Array<[string, unknown[]]>;
  let before: { results: ByName; searches: ByName; calls: ByName; durable: Record<string, unknown[]> };

  /** Every row of the tables retention never touches, in a stable order. */
  async function durableRows(): Promise<Record<string, unknown[]>> {
    const out: Record<string, unknown[]> = {};
    for (const [table, order] of [
      ['leads', 'id'],
      ['sales', 'lead_id'],
      ['consent_evidence', 'lead_id'],
      ['delivery_attempts', 'lead_id, attempt'],
      ['dedupe_keys', 'lead_id, key_type'],
      ['cap_usage', 'scope, period, period_start'],
      ['consent_ledger', 'seq'],
      ['consent_seals', 'day'],
      ['lead_returns', 'lead_id'],
    ]) {
      out[table] = ((await ds.query(`SELECT to_jsonb(t) AS row FROM ${table} t ORDER BY ${order}`)) as Array<{ row: unknown }>).map(
        (r) => r.row,
      );
    }
    return out;
  }

  /** What a lookup by id reads of the named searches, as the repositories look them up (their id's day, or kept). */
  async function namedSearches(): Promise<{ results: ByName; searches: ByName; calls: ByName }> {
    const found = { results: [] as ByName, searches: [] as ByName, calls: [] as ByName };
    for (const name of named) {
      const id = s[name].id;
      const rows = (await ds.query(
        `SELECT to_jsonb(s) - 'part_day' AS row FROM searches s WHERE s.id = $1 AND ${searchDays('s', '$1::uuid')}`,
        [id],
      )) as Array<{ row: unknown }>;
      found.searches.push([name, rows.map((r) => r.row)]);
      const results = await ds.query(
        `SELECT r.id, r.offer_id, r.entry, r.partner_data, r.expires_at, r.rank, r.payout FROM results r WHERE r.search_id = $1 AND ${searchDays('r', '$1::uuid')} ORDER BY r.rank`,
        [id],
      );
      found.results.push([name, results]);
      const calls = await ds.query(
        `SELECT to_jsonb(c) - 'part_day' AS row FROM search_partner_calls c WHERE c.search_id = $1 ORDER BY c.partner_id`,
        [id],
      );
      found.calls.push([name, calls]);
    }
    return found;
  }

  const partitionNames = async (): Promise<string[]> =>
    (
      (await ds.query(
        `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE c.relkind = 'r' ORDER BY c.relname`,
      )) as Array<{ relname: string }>
    ).map((r) => r.relname);
  const dayOfSearch = async (id: string): Promise<string[]> =>
    ((await ds.query(`SELECT to_char(part_day, 'YYYY-MM-DD') AS day FROM searches WHERE id = $1`, [id])) as Array<{ day: string }>).map(
      (r) => r.day,
    );

  /**
   * A search as the day layout stores it: its id a UUIDv7 of its day (a
   * legacy one a v4), its results' templates in its day's result_templates,
   * one partner call.
   */
  async function storeSearch(name: string, day: string, opts: { legacy?: boolean; at?: string } = {}): Promise<void> {
    const createdAt = new Date(opts.at ?? `${day}T12:00:00.000Z`);
    const id = opts.legacy ? randomUUID() : v7({ msecs: createdAt.getTime() });
    const partDay = opts.legacy ? LEGACY_DAY : day;
    const offers = [
      { offerId: ids.offer, name: 'Harbor Nursing', payout: 12 },
      { offerId: ids.offer2, name: 'Harbor Tech', payout: 8 },
    ];
    const results = offers.map((o) => {
      const body = JSON.stringify({
        campaign_id: ids.camp,
        offer: {
          id: o.offerId,
          name: o.name,
          offer_type: 'shared',
          is_exclusive: false,
          tcpa_text: `I agree that ${o.name} may contact me.`,
        },
        school: { name: 'Harbor College', logo_url: null },
        programs: [{ value: 'gen', label: 'General' }],
        payout: o.payout,
        form_fields: [],
      });
      const digest = createHash('sha256').update(body).digest('hex').slice(0, 32);
      return {
        id: v7({ msecs: createdAt.getTime() + 1 }),
        offerId: o.offerId,
        payout: o.payout,
        body,
        digest: digest.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'),
      };
    });
    for (const r of results) {
      await ds.query(
        `INSERT INTO result_templates (part_day, digest, offer_id, payout, body) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
        [partDay, r.digest, r.offerId, r.payout, r.body],
      );
    }
    const expires = new Date(createdAt.getTime() + 900_000);
    await ds.query(
      `INSERT INTO searches (id, part_day, affiliate_id, campaign_id, api_key_id, lead, tracking, consumer_ip, ip_source, tcpa_consent, created_at, closes_at,
                             processing_done_at, state_version, offer_decisions, result_order, result_templates, result_expires, result_partner)
       VALUES ($1, $2, $3, $4, $5, $6, '{"ip_address":"73.12.44.10"}', '73.12.44.10', 'consumer', true, $7, $8, $7, 1, $9, $10::uuid[], $11::uuid[], $12::timestamptz[], $13)`,
      [
        id,
        partDay,
        ids.aff,
        ids.camp,
        apiKeyId,
        JSON.stringify(person(Object.keys(s).length % 10)),
        createdAt,
        new Date(createdAt.getTime() + 45_000),
        JSON.stringify(Object.fromEntries(results.map((r) => [r.offerId, { shown: true, result_id: r.id }]))),
        results.map((r) => r.id),
        results.map((r) => r.digest),
        results.map(() => expires),
        JSON.stringify({ [results[1].id]: { partner_result_id: `p-${name}` } }),
      ],
    );
    await ds.query(
      `INSERT INTO search_partner_calls (search_id, partner_id, part_day, offer_ids, status, requested_at, answered_at, latency_ms, result_count)
       VALUES ($1, $2, $3, $4::uuid[], 'answered', $5, $5::timestamptz + interval '120 milliseconds', 120, 1)`,
      [id, ids.partner, partDay, [ids.offer2], createdAt],
    );
    s[name] = { id, day: partDay, resultIds: results.map((r) => r.id) };
  }

  async function handledMessage(day: string, opts: { legacy?: boolean } = {}): Promise<string> {
    const messageId = randomUUID();
    await ds.query(
      `INSERT INTO processed_messages (consumer, message_id, part_day, message_type, processed_at) VALUES ('delivery', $1, $2, 'partner.submit.requested.v1', $3)`,
      [messageId, opts.legacy ? LEGACY_DAY : day, `${day}T08:00:00Z`],
    );
    return messageId;
  }
  const messages: Record<string, string> = {};

  beforeAll(async () => {
    await dropDatabase(dbUrl);
    await migrateDatabase(dbUrl, TEST_PERSON_KEY_SECRET);
    ds = createDataSource({ url: dbUrl, poolSize: 2, timeoutMs: 10_000 });
    await ds.initialize();
    for (const day of [days.old, days.older, days.edge, days.recent])
      await createDayPartitions(ds, { from: day, to: null, suffix: daySuffix(day) });

    const seed = new LeadActivitySeed(ds);
    await seed.catalog({
      affiliates: [{ id: ids.aff, name: 'Retention Affiliate', status: 'active' }],
      schools: [{ id: ids.school, name: 'Harbor College', logo_url: null }],
      offers: [opsOwnOffer(ids.offer, ids.school, 'Harbor Nursing'), opsOwnOffer(ids.offer2, ids.school, 'Harbor Tech')],
      campaigns: [
        campaign(ids.camp, ids.aff, 'Retention', [
          { offer_id: ids.offer, payout: 12 },
          { offer_id: ids.offer2, payout: 8 },
        ]),
      ],
    });
    apiKeyId = await seed.apiKey(ids.aff);

    for (const name of ['acceptedOld', 'pendingOld', 'rejectedOld', 'lateOld', 'plainOld', 'plainOld2']) await storeSearch(name, days.old);
    for (const name of ['acceptedOlder', 'plainOlder']) await storeSearch(name, days.older);
    await storeSearch('edge', days.edge, { at: `${days.edge}T00:00:00.000Z` });
    for (const name of ['recentNamed', 'recentPlain']) await storeSearch(name, days.recent);
    for (const name of ['acceptedLegacy', 'plainLegacy']) await storeSearch(name, addDays(today, -45), { legacy: true });

    const common = { affiliateId: ids.aff, campaignId: ids.camp, apiKeyId, offerId: ids.offer };
    const submitOf = (name: string, after: number, n: number) => ({
      ...common,
      searchId: s[name].id,
      resultId: s[name].resultIds[0],
      lead: person(n),
      programId: 'gen',
      at: new Date(Date.parse(`${s[name].day === LEGACY_DAY ? addDays(today, -45) : s[name].day}T12:00:00.000Z`) + after).toISOString(),
      consent: { tcpaConsent: true, tcpaText: 'I agree that Harbor Nursing may contact me.', buttonLabel: 'Get my matches' },
    });
    const accepted = { status: 'accepted', code: 'ACCEPTED', reason: 'Lead accepted', decidedBy: 'buyer' as const, payout: 12 };
    const delivered = { outcome: 'accepted', httpStatus: 200, latencyMs: 150, detail: null, startAfterMs: 100, durationMs: 150 };
    const acceptedOldLead = await seed.submit({
      ...submitOf('acceptedOld', 60_000, 1),
      decision: accepted,
      sale: { payout: 12, price: 45 },
      attempt: delivered,
    });
    await seed.submit({ ...submitOf('pendingOld', 60_000, 2), decision: { status: 'pending' } });
    await seed.submit({
      ...submitOf('rejectedOld', 90_000, 3),
      decision: { status: 'rejected', code: 'BUYER_REJECTED', reason: 'Rejected - Client', decidedBy: 'buyer' },
      sale: { payout: 12, price: 45 },
      attempt: { outcome: 'rejected', httpStatus: 200, latencyMs: 90, detail: 'not a fit', startAfterMs: 100, durationMs: 90 },
    });
    // Five days after its search, long after its results expired: refused, and stored naming the search.
    await seed.submit({
      ...submitOf('lateOld', 5 * 86_400_000, 4),
      decision: { status: 'rejected', code: 'OFFER_UNAVAILABLE', reason: 'Offer unavailable', decidedBy: 'service' },
    });
    await seed.submit({
      ...submitOf('acceptedOlder', 3_600_000, 5),
      decision: accepted,
      sale: { payout: 12, price: 45 },
      attempt: delivered,
    });
    await seed.submit({
      ...submitOf('acceptedLegacy', 120_000, 6),
      decision: accepted,
      sale: { payout: 12, price: 45 },
      attempt: delivered,
    });
    await seed.submit({ ...submitOf('recentNamed', 60_000, 7), decision: accepted, sale: { payout: 12, price: 45 }, attempt: delivered });

    // The consent ledger as the submits' statement appends it (one record per live lead with consent evidence), chained and sealed
    // by the chainer; and a return of an accepted lead: five-year records retention must leave as they are.
    await ds.query(
      `INSERT INTO consent_ledger (lead_id, school_id, appended_at)
       SELECT l.id, o.school_id, l.created_at FROM leads l JOIN consent_evidence c ON c.lead_id = l.id JOIN offers o ON o.id = l.offer_id ORDER BY l.created_at`,
    );
    const chained = await chainConsentLedger(new ConsentLedger(ds), () => new Date(`${addDays(today, 1)}T00:00:10.000Z`));
    expect(chained).toMatchObject({ kind: 'chained', linked: 7, sealed: { count: 7 } });
    const returned = await new LeadReturns(ds).returnLead(
      { leadId: acceptedOldLead, schoolId: ids.school, reason: 'bad_phone', note: null, source: 'import', apiKeyId: null },
      () => ({ kind: 'return', payoutReversal: null, priceReversal: null, refundsCap: false }),
    );
    expect(returned).toMatchObject({ kind: 'returned' });

    messages.old = await handledMessage(days.old);
    messages.edge = await handledMessage(days.edge);
    messages.recent = await handledMessage(days.recent);
    messages.legacy = await handledMessage(addDays(today, -50), { legacy: true });

    before = { ...(await namedSearches()), durable: await durableRows() };
  });

  afterAll(async () => {
    await ds?.destroy();
    await dropDatabase(dbUrl);
  });

  it('seeds each search in the partition of its id’s day (lr_id_day), legacy ones in legacy', async () => {
    for (const [name, x] of Object.entries(s)) {
      const [{ day }] = await ds.query(`SELECT to_char(lr_id_day($1::uuid), 'YYYY-MM-DD') AS day`, [x.id]);
      expect([name, day]).toEqual([name, x.day]);
      expect([name, await dayOfSearch(x.id)]).toEqual([name, [x.day]]);
    }
    // The results view rebuilds every result of a named search: two each.
    expect(before.results.map(([name, rows]) => [name, rows.length])).toEqual(named.map((n) => [n, 2]));
  });

  it('--dry-run prints the plan, counts exactly, and changes nothing (not even the kept partition)', async () => {
    const partitions = await partitionNames();
    const placement = await ds.query(`SELECT id, part_day FROM searches ORDER BY id`);
    const run = await ops('retention', 'run', '--dry-run', '--json');
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.stdout);
    expect(plan).toMatchObject({
      dry_run: true,
      today,
      settings: { search_days: 30, message_days: 30 },
      cutoffs: { searches: days.edge, messages: days.edge },
    });
    expect(plan.days.map((d: RetentionDayJson) => [d.family, d.day, d.kept?.searches ?? null])).toEqual([
      ['searches', days.old, 4],
      ['messages', days.old, null],
      ['searches', days.older, 1],
      ['messages', days.older, null],
      ['searches', 'legacy', 1],
      ['messages', 'legacy', null],
    ]);
    const oldDay = plan.days[0];
    expect(oldDay.partitions.map((p: PartitionJson) => [p.name, p.rows, p.ms])).toEqual([
      [`searches_${daySuffix(days.old)}`, 6, null],
      [`search_partner_calls_${daySuffix(days.old)}`, 6, null],
      [`result_templates_${daySuffix(days.old)}`, 2, null],
    ]);
    expect(oldDay.partitions.every((p: PartitionJson) => p.bytes > 0)).toBe(true);
    expect(plan.partitions_ahead).toEqual({ missing_days: [], created: 0 });
    expect(run.stderr).toContain(`retention 1/12: would drop searches_${daySuffix(days.old)} (6 rows,`);

    const text = await ops('retention', 'run', '--dry-run');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Retention dry run (nothing changed)');
    expect(text.stdout).toContain(`${days.old}: 4 searches a lead names would move to the kept partition`);
    expect(text.stdout).toMatch(/Would drop 12 partitions of 3 days: /);

    expect(await partitionNames()).toEqual(partitions);
    expect(await ds.query(`SELECT id, part_day FROM searches ORDER BY id`)).toEqual(placement);
    expect(await durableRows()).toEqual(before.durable);
  });

  it('keeps every search a lead names with its results and partner calls, drops the rest past the window, leaves newer days and the durable tables alone', async () => {
    const run = await ops('retention', 'run', '--json');
    expect([run.code, run.stderr.match(/^error.*$/m)?.[0]]).toEqual([0, undefined]);
    const report = JSON.parse(run.stdout);
    expect(report.dry_run).toBe(false);
    expect(report.days.map((d: RetentionDayJson) => [d.family, d.day, d.kept])).toEqual([
      ['searches', days.old, { searches: 4, partner_calls: 4, templates: 2 }],
      ['messages', days.old, null],
      // The same templates as the old day's: kept once (content-addressed).
      ['searches', days.older, { searches: 1, partner_calls: 1, templates: 0 }],
      ['messages', days.older, null],
      ['searches', 'legacy', { searches: 1, partner_calls: 1, templates: 0 }],
      ['messages', 'legacy', null],
    ]);
    // Counted after the searches a lead names moved out: what was dropped.
    expect(report.days[0].partitions.map((p: PartitionJson) => [p.table, p.rows])).toEqual([
      ['searches', 2],
      ['search_partner_calls', 2],
      ['result_templates', 2],
    ]);
    expect(
      report.days
        .flatMap((d: RetentionDayJson) => d.partitions)
        .every((p: PartitionJson) => p.ms !== null && Number.isInteger(p.ms) && p.ms >= 0),
    ).toBe(true);
    expect(report.totals).toMatchObject({ days: 3, partitions: 12, kept_searches: 6 });
    for (let n = 1; n <= 12; n++)
      expect(run.stderr).toMatch(new RegExp(`^retention ${n}/12: dropped \\w+ \\(\\d+ rows, .+\\) in \\d+ ms$`, 'm'));

    // The expired days' partitions are gone, of all four tables; legacy stays (emptied), kept and newer days stay.
    const partitions = await partitionNames();
    for (const day of [days.old, days.older]) expect(partitions.filter((p) => p.endsWith(daySuffix(day)))).toEqual([]);
    for (const day of [days.edge, days.recent, today]) expect(partitions.filter((p) => p.endsWith(daySuffix(day))).length).toBe(4);
    expect(partitions.filter((p) => /_(kept|legacy)$/.test(p)).length).toBe(8);

    // Every search a lead names: in kept (the recent one where it was), read by id with the same results and calls.
    for (const name of named)
      expect([name, await dayOfSearch(s[name].id)]).toEqual([name, [name === 'recentNamed' ? days.recent : KEPT_DAY]]);
    expect(await namedSearches()).toEqual({ results: before.results, searches: before.searches, calls: before.calls });
    // Searches no lead names, past the window: gone, with their calls.
    for (const name of unnamedExpired) {
      expect([name, await dayOfSearch(s[name].id)]).toEqual([name, []]);
      expect([name, (await ds.query(`SELECT 1 FROM search_partner_calls WHERE search_id = $1`, [s[name].id])).length]).toEqual([name, 0]);
    }
    // Newer days untouched.
    for (const name of untouched) expect([name, await dayOfSearch(s[name].id)]).toEqual([name, [s[name].day]]);
    // Leads, sales, payouts, consent evidence, delivery attempts, dedupe keys, cap usage: as they were.
    expect(await durableRows()).toEqual(before.durable);
    // Handled-message records: gone past their window, kept within it.
    const handled = ((await ds.query(`SELECT message_id FROM processed_messages`)) as Array<{ message_id: string }>)
      .map((r) => r.message_id)
      .sort();
    expect(handled).toEqual([messages.edge, messages.recent].sort());
  });

  it('finds nothing to do right after (the built CLI, as a schedule runs it)', async () => {
    const partitions = await partitionNames();
    const r = runOps(['retention', 'run'], env);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain('Nothing to drop: no partition is past its window.');
    const json = runOps(['retention', 'run', '--json'], env);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      days: [],
      totals: { partitions: 0, rows: 0, kept_searches: 0 },
      partitions_ahead: { missing_days: [], created: 0 },
    });
    expect(await partitionNames()).toEqual(partitions);
    expect(await durableRows()).toEqual(before.durable);
  });

  it('storage report --json lists every table and each partition with its size, and bytes per search', async () => {
    await ds.query('ANALYZE');
    const run = await ops('storage', 'report', '--json');
    expect(run.code).toBe(0);
    const r = JSON.parse(run.stdout);
    const tables = r.tables.map((t: TableJson) => t.table);
    for (const t of [
      'searches',
      'result_templates',
      'search_partner_calls',
      'processed_messages',
      'leads',
      'sales',
      'consent_evidence',
      'dedupe_keys',
      'delivery_attempts',
      'idempotency_keys',
    ]) {
      expect(tables).toContain(t);
    }
    expect(tables).not.toContain(`searches_${daySuffix(today)}`);
    const searches = r.tables.find((t: TableJson) => t.table === 'searches');
    expect(searches).toMatchObject({ partitioned: true, partitions: 13, rows_estimate: 9 });
    expect(r.searches).toBe(9);
    expect(r.total_bytes).toBe(r.tables.reduce((n: number, t: TableJson) => n + t.bytes, 0));
    const searchBytes = ['searches', 'result_templates', 'search_partner_calls'].reduce(
      (n, t) => n + r.tables.find((x: TableJson) => x.table === t).bytes,
      0,
    );
    expect(r.search_bytes).toBe(searchBytes);
    expect(r.bytes_per_search).toBe(Math.round(searchBytes / 9));
    expect(r.partitions.searches.map((p: PartitionJson) => p.day)).toEqual([
      'kept',
      'legacy',
      days.edge,
      days.recent,
      ...[-1, 0, 1, 2, 3, 4, 5, 6, 7].map((n) => addDays(today, n)),
    ]);
    expect(r.partitions.searches.find((p: PartitionJson) => p.day === 'kept')).toMatchObject({ name: 'searches_kept', rows_estimate: 6 });
    expect(r.partitions.processed_messages.every((p: PartitionJson) => p.bytes > 0)).toBe(true);

    const text = await ops('storage', 'report');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Searches stored: 9; searches, result templates and partner calls take .+ per search$/m);
    expect(text.stdout).toMatch(/^ {2}searches_kept +kept +6 +[\d.]+ KiB$/m);
    for (const canary of ['Retained', 'retained.1@example.com', '5125550201']) expect(text.stdout).not.toContain(canary);
  });

  it('refuses to run beside another run, and refuses a window under the minimum', async () => {
    const holder = new Client({ connectionString: dbUrl });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(hashtext('lead-router-retention'))`);
      const busy = await ops('retention', 'run');
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain('another retention run holds the retention lock; nothing changed');
      // A dry run needs no lock.
      expect((await ops('retention', 'run', '--dry-run')).code).toBe(0);
    } finally {
      await holder.end();
    }
    const tooShort = await opsIn({ ...env, RETENTION_SEARCH_DAYS: '2' }, ['retention', 'run']);
    expect(tooShort.code).toBe(2);
    expect(tooShort.stderr).toContain('RETENTION_SEARCH_DAYS=2');
  });

  it('with a lower RETENTION_SEARCH_DAYS (a full disk), drops newer days too and still keeps what a lead names; a bar on a terminal', async () => {
    let drawn = '';
    const tty = {
      isTTY: true,
      columns: 120,
      write: (chunk: string | Uint8Array) => ((drawn += String(chunk)), true),
    } as unknown as NodeJS.WritableStream & { isTTY: boolean };
    const run = await opsIn({ ...env, RETENTION_SEARCH_DAYS: '5' }, ['retention', 'run', '--json'], { progressStream: tty });
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(drawn).toContain('retention [');
    expect(drawn).toContain(`6/6 partitions, last result_templates_${daySuffix(days.recent)}`);
    const report = JSON.parse(run.stdout);
    expect(report.days.map((d: RetentionDayJson) => [d.family, d.day, d.kept?.searches ?? null])).toEqual([
      ['searches', days.edge, 0],
      ['searches', days.recent, 1],
    ]);
    expect(await dayOfSearch(s.recentNamed.id)).toEqual([KEPT_DAY]);
    expect(await dayOfSearch(s.recentPlain.id)).toEqual([]);
    expect(await dayOfSearch(s.edge.id)).toEqual([]);
    expect(await namedSearches()).toEqual({ results: before.results, searches: before.searches, calls: before.calls });
    expect(await durableRows()).toEqual(before.durable);
    // Handled messages keep their own window.
    expect((await partitionNames()).filter((p) => p.startsWith('processed_messages_p')).length).toBe(11);
  });

  it('a drop never holds the services’ queries behind a long query for more than its lock timeout: it yields, and tries again', async () => {
    const day = addDays(today, -12);
    await createDayPartitions(ds, { from: day, to: null, suffix: daySuffix(day) });
    await storeSearch('behindLongQuery', day);
    // A long query on searches (a report, say): DROP TABLE of a partition needs its parent's exclusive lock.
    const holder = new Client({ connectionString: dbUrl });
    const reader = new Client({ connectionString: dbUrl });
    await holder.connect();
    await reader.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT count(*) FROM searches');
      const run = opsIn({ ...env, RETENTION_SEARCH_DAYS: '5' }, ['retention', 'run', '--json']);
      await new Promise((r) => setTimeout(r, 500));
      // A service's query meanwhile waits at most for the drop's lock timeout (2 s), not for the long query.
      const started = Date.now();
      await reader.query('SELECT count(*) FROM searches');
      expect(Date.now() - started).toBeLessThan(3000);
      await new Promise((r) => setTimeout(r, 5000));
      await holder.query('COMMIT');
      const done = await run;
      expect(done.code).toBe(0);
      expect(JSON.parse(done.stdout).days.map((d: RetentionDayJson) => [d.day, d.partitions.length])).toEqual([[day, 3]]);
      expect(await dayOfSearch(s.behindLongQuery.id)).toEqual([]);
    } finally {
      await holder.end();
      await reader.end();
    }
  });

  it('a run stopped by a failing drop says what it dropped and exits 1; the next run finishes the day', async () => {
    const day = addDays(today, -15);
    await createDayPartitions(ds, { from: day, to: null, suffix: daySuffix(day) });
    await storeSearch('interrupted', day);
    // Something that depends on the day's templates partition: DROP TABLE refuses it.
    await ds.query(`CREATE VIEW retention_blocker AS SELECT digest FROM result_templates_${daySuffix(day)}`);
    const stopped = await opsIn({ ...env, RETENTION_SEARCH_DAYS: '5' }, ['retention', 'run']);
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toContain(`searches_${daySuffix(day)}`);
    expect(stopped.stdout).toContain('Dropped 2 partitions of 1 day');
    expect(stopped.stderr).toMatch(
      new RegExp(
        `^error: retention stopped at result_templates_${daySuffix(day)}: .*depend.*; what was dropped is listed above, run it again to finish$`,
        'm',
      ),
    );
    expect(await dayOfSearch(s.interrupted.id)).toEqual([]);

    await ds.query(`DROP VIEW retention_blocker`);
    const finished = await opsIn({ ...env, RETENTION_SEARCH_DAYS: '5' }, ['retention', 'run', '--json']);
    expect(finished.code).toBe(0);
    expect(JSON.parse(finished.stdout).days.map((d: RetentionDayJson) => [d.day, d.partitions.map((p: PartitionJson) => p.name)])).toEqual([
      [day, [`result_templates_${daySuffix(day)}`]],
    ]);
    expect((await partitionNames()).filter((p) => p.endsWith(daySuffix(day)))).toEqual([`processed_messages_${daySuffix(day)}`]);
  });
});
