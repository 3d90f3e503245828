import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { hashOf, type Lead, leadDedupeKeys } from '../libs/domain/src';
import { addDays, dayOf, daySuffix } from '../libs/persistence/src/partitions/partition-days';
import { quoteLiteral } from '../libs/persistence/src/queries/sql';
import { createDayPartitions } from '../libs/persistence/src/repositories/partitions.repository';
import { BENCH_STATE } from './support/bench-state';

/**
 * Historical searches for the storage bench (docs/performance.md, "Storage"):
 * `searches` finished searches of the campaign of a model search, spread
 * evenly over the `days` x 24 h before now, stored the way the system stores
 * them (docs/storage.md), generated in PostgreSQL in batches (no row crosses
 * the wire):
 * - each search's id is a UUIDv7 of its own time, so it lands in the day
 *   partition `lr_id_day(id)` names (past days' partitions are created here,
 *   with the partition keeper's createDayPartitions);
 * - its results are in its row (`result_order` of new result ids, the model's
 *   `result_templates`, expiries as far after its time as the model's), and
 *   the templates it names are in its day's partition: the model's templates
 *   copied once into each day (what the system writes on a day's first search);
 * - its lead is the model's with a person of its own (email, phone, last
 *   name), `person_keys` hashed as libs/domain hashes them (checked on the
 *   first batch), `offer_decisions` and `result_partner` the model's with its
 *   own result ids, its partner calls the model's, at its own time;
 * - one search in `submitEvery` (33: about 3 %) has a submit, sold and
 *   accepted, on one of its own-offer results: the search marked submitted,
 *   a `leads` row, its `sales` row (with its cap slots, counted in
 *   `cap_usage`), `consent_evidence`, three `dedupe_keys` rows and a delivery
 *   attempt, as a sold submit leaves them.
 * Batches go to `jobs` connections at once (each statement runs on one
 * core). Then ANALYZE, as autovacuum would after so many new rows, and a
 * CHECKPOINT, so the bulk's dirty pages are written now and not during
 * whatever is measured next.
 *
 * The model is a finished, unsubmitted search of the database (by default the
 * newest one with the most results): run searches of the bench campaign first
 * (`npm run bench:storage` does). History person i has the email
 * `hist.<i>@example.com` (historyPerson), so a bench can ask about them.
 *
 * CLI: node dist/bench/generate-history.js --searches 1000000 --days 30
 *      [--batch 50000] [--jobs 2] [--submit-every 33] [--model <search id>] [--database-url <url>]
 * (default database: the bench's, leadrouter_bench).
 */
export interface HistoryOptions {
  searches: number;
  days: number;
  /** Searches per statement (each its own transaction). */
  batch?: number;
  /** One search in this many has a submit (33: about 3 %). */
  submitEvery?: number;
  /** The search to copy; default the newest finished unsubmitted search with the most results. */
  modelSearchId?: string;
  /** The end of the history (exclusive); default now. */
  until?: Date;
  /** Connections generating batches at once (default: 2, or 1 on a single core). */
  jobs?: number;
}

export interface HistoryResult {
  searches: number;
  submits: number;
  days: number;
  /** The history's first and last day (UTC), `YYYY-MM-DD`; the first and the last one are partial days. */
  firstDay: string;
  lastDay: string;
  partitionsCreated: number;
  templatesCopied: number;
  modelSearchId: string;
  resultsPerSearch: number;
  /** Generation, ANALYZE and CHECKPOINT, ms. */
  ms: { generate: number; analyze: number; checkpoint: number; total: number };
  databaseBytes: { before: number; after: number };
}

export const DEFAULT_BATCH = 50_000;
export const DEFAULT_SUBMIT_EVERY = 33;
export const DEFAULT_JOBS = Math.min(2, cpus().length);

/** History person i, as the generator writes them (the lead's other fields are the model's). */
export function historyPerson(i: number): { email: string; phone: string; lastName: string } {
  return {
    email: `hist.${i}@example.com`,
    phone: `6${String(i).padStart(9, '0')}`,
    lastName: `Hist${String(i).replace(/\d/g, (d) => 'abcdefghij'[Number(d)])}`,
  };
}

/** sha256 hex of a SQL text expression, as libs/domain hashes (UTF-8 bytes, lower-case hex). */
const h = (expr: string) => `encode(sha256(convert_to(${expr}, 'UTF8')), 'hex')`;

/** A UUIDv7 of the time in the SQL expression `at` (ms precision), its other bits random (from a v4: its variant bits are v7's too). */
const uuidV7 = (
  at: string,
) => `(SELECT (substr(t, 1, 8) || '-' || substr(t, 9, 4) || '-7' || substr(r, 14, 3) || '-' || substr(r, 17, 4) || '-' || substr(r, 21, 12))::uuid
     FROM (SELECT lpad(to_hex(floor(extract(epoch FROM ${at}) * 1000)::bigint), 12, '0') AS t, replace(gen_random_uuid()::text, '-', '') AS r) v7)`;

interface ModelSearch {
  id: string;
  part_day: string;
  /** Each result's expiry, ms after the search's creation. */
  expires_ms: number[];
  lead: Lead;
  offer_decisions: string;
  result_partner: string | null;
  result_order: string[];
  result_templates: string[];
}

/** A result a history submit may pick: an own offer's result of the model, with what its submit and its sale write. */
interface SubmitChoice {
  i: number;
  pos: number;
  offer_id: string;
  school_id: string;
  offer_type: string;
  price: string | null;
  payout: string | null;
  program_id: string | null;
  answers: Record<string, string>;
  tcpa_text: string | null;
}

/**
 * A JSON text of the model with result ids in it, as an SQL expression of one
 * search's own result ids (`g.rids`, parallel to the model's `result_order`):
 * the text around each id as literals, the ids from the row. One
 * array_to_string: one allocation per row, whatever the number of ids.
 */
function withResultIds(text: string, order: readonly string[]): string {
  const position = new Map(order.map((id, k) => [id, k + 1]));
  const parts: string[] = [];
  let last = 0;
  for (const m of text.matchAll(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g)) {
    const k = position.get(m[0]);
    if (k === undefined) continue;
    parts.push(quoteLiteral(text.slice(last, m.index)), `g.rids[${k}]::text`);
    last = m.index! + m[0].length;
  }
  parts.push(quoteLiteral(text.slice(last)));
  return `array_to_string(ARRAY[${parts.join(', ')}]::text[], '')`;
}

/** The first option of every question and the first program: what the submit bench answers (every bench lead qualifies). */
function submitFields(body: {
  programs?: Array<{ value: string; payout?: number }>;
  form_fields?: Array<{ name: string; options?: Array<{ value: string }> }>;
  payout?: number;
}) {
  const answers: Record<string, string> = {};
  for (const f of body.form_fields ?? []) answers[f.name] = f.options?.[0]?.value ?? '1';
  const program = body.programs?.[0];
  const payout = program?.payout ?? body.payout;
  return { program_id: program?.value ?? null, answers, payout: payout === undefined ? null : String(payout) };
}

async function modelSearch(pg: Client, id: string | undefined): Promise<ModelSearch> {
  const rows = (
    await pg.query<ModelSearch>(
      `SELECT s.id, to_char(s.part_day, 'YYYY-MM-DD') AS part_day, s.lead, s.offer_decisions::text AS offer_decisions, s.result_partner::text AS result_partner,
              s.result_order::text[] AS result_order, s.result_templates::text[] AS result_templates,
              ARRAY(SELECT extract(epoch FROM e.at - s.created_at) * 1000 FROM unnest(s.result_expires) WITH ORDINALITY AS e(at, k) ORDER BY e.k)::float8[] AS expires_ms
         FROM searches s
        WHERE ($1::uuid IS NULL OR s.id = $1::uuid)
          AND s.processing_done_at IS NOT NULL AND s.submitted_at IS NULL AND NOT s.is_test AND s.person_keys IS NOT NULL
          AND cardinality(s.result_order) > 0
          -- a search of the bench, not one generated before
          AND s.lead -> 'personal' ->> 'email' NOT LIKE 'hist.%@example.com'
          AND NOT EXISTS (SELECT 1 FROM search_partner_calls c WHERE c.search_id = s.id AND c.part_day = s.part_day AND c.status = 'pending')
        ORDER BY cardinality(s.result_order) DESC, s.created_at DESC
        LIMIT 1`,
      [id ?? null],
    )
  ).rows;
  if (rows.length === 0) {
    throw new Error(
      id
        ? `search ${id} is not a finished, unsubmitted search with results`
        : 'no finished, unsubmitted search with results to copy: run searches of the bench campaign first (npm run bench:storage does)',
    );
  }
  return rows[0];
}

async function submitChoices(pg: Client, m: ModelSearch): Promise<SubmitChoice[]> {
  const rows = (
    await pg.query<{
      pos: number;
      offer_id: string;
      school_id: string;
      offer_type: string;
      price: string | null;
      body: string;
      tcpa_text: string | null;
    }>(
      `SELECT x.pos::int, t.offer_id, o.school_id, o.offer_type, o.price::text AS price, t.body, o.tcpa_text
         FROM unnest($2::uuid[]) WITH ORDINALITY AS x(digest, pos)
         JOIN result_templates t ON t.part_day = $1::date AND t.digest = x.digest
         JOIN offers o ON o.id = t.offer_id AND o.source = 'own'
        ORDER BY x.pos`,
      [m.part_day, m.result_templates],
    )
  ).rows;
  if (rows.length === 0) throw new Error(`the model search ${m.id} shows no own offer: history submits need one`);
  return rows.map((r, i) => {
    const body = JSON.parse(r.body) as Parameters<typeof submitFields>[0] & { offer?: { tcpa_text?: string | null } };
    return {
      i,
      pos: r.pos,
      offer_id: r.offer_id,
      school_id: r.school_id,
      offer_type: r.offer_type,
      price: r.price,
      ...submitFields(body),
      tcpa_text: body.offer?.tcpa_text ?? r.tcpa_text,
    };
  });
}

/**
 * One batch: searches $1..$2 of the history, with their partner calls and,
 * for one in $5, the submit's rows. Parameters: $1 first, $2 last, $3 the
 * history's start, $4 ms between searches, $5 submit every, $6 model id,
 * $7 model day, $8 the model's results, $9 its results' expiries (ms after
 * its creation), $10 submit choices (JSON), $11 the zip hash and $12 the date
 * of birth hash of the model's lead, $13 its lead, $14 its results'
 * templates. What the model's row holds is read once
 * (`m`) or passed in: a value read from its row per generated row would be
 * detoasted each time.
 */
function batchStatement(decisions: string, partner: string | null): string {
  return `WITH m AS MATERIALIZED (
    SELECT * FROM searches WHERE id = $6::uuid AND part_day = $7::date
  ), choice AS MATERIALIZED (
    SELECT * FROM jsonb_to_recordset($10::jsonb) AS c(i int, pos int, offer_id uuid, school_id uuid, offer_type text, price numeric, payout numeric,
                                                    program_id text, answers jsonb, tcpa_text text)
  ), p AS (
    SELECT t.n, t.at, 'hist.' || t.n || '@example.com' AS email, '6' || lpad(t.n::text, 9, '0') AS phone,
           'Hist' || translate(t.n::text, '0123456789', 'abcdefghij') AS last_name
      FROM (SELECT n, $3::timestamptz + (n + 0.5) * $4::float8 * interval '1 millisecond' AS at FROM generate_series($1::int, $2::int) AS n) t
  ), g AS MATERIALIZED (
    SELECT p.n, p.at, ${uuidV7('p.at')} AS id,
           ARRAY(SELECT gen_random_uuid() FROM generate_series(1, $8::int) WHERE p.n IS NOT NULL) AS rids,
           jsonb_set(jsonb_set(jsonb_set($13::jsonb, '{personal,email}', to_jsonb(p.email)), '{personal,phone}', to_jsonb(p.phone)),
                     '{personal,last_name}', to_jsonb(p.last_name)) AS lead,
           ${h('p.email')} AS h_email, ${h('p.phone')} AS h_phone, ${h(`${h('lower(p.last_name)')} || '|' || $11 || '|' || $12`)} AS h_person,
           c.pos, c.offer_id, c.school_id, c.offer_type, c.price, c.payout, c.program_id, c.answers, c.tcpa_text,
           CASE WHEN c.pos IS NOT NULL THEN ${uuidV7(`p.at + interval '2 seconds'`)} END AS lead_id,
           p.at + interval '2 seconds' AS lead_at
      FROM p CROSS JOIN m
      LEFT JOIN choice c ON p.n % $5::int = 0 AND c.i = (p.n / $5::int) % (SELECT count(*) FROM choice)
  ), searches_in AS (
    INSERT INTO searches (id, part_day, affiliate_id, campaign_id, api_key_id, is_test, lead, tracking, consumer_ip, ip_source,
                          tcpa_consent, form_cert_url, universal_lead_cert, created_at, closes_at, processing_done_at,
                          accepted_count, true_exclusive_accepted, submitted_at, state_version, offer_decisions,
                          result_order, result_templates, result_expires, result_partner, person_keys)
    SELECT g.id, lr_id_day(g.id), m.affiliate_id, m.campaign_id, m.api_key_id, m.is_test, g.lead, m.tracking, m.consumer_ip, m.ip_source,
           m.tcpa_consent, m.form_cert_url, m.universal_lead_cert, g.at, g.at + (m.closes_at - m.created_at), g.at + (m.processing_done_at - m.created_at),
           CASE WHEN g.lead_id IS NULL THEN 0 ELSE 1 END, COALESCE(g.offer_type = 'true_exclusive', false),
           CASE WHEN g.lead_id IS NOT NULL THEN g.lead_at + interval '30 milliseconds' END,
           m.state_version + CASE WHEN g.lead_id IS NULL THEN 0 ELSE 1 END, (${decisions})::jsonb,
           g.rids, $14::uuid[], ARRAY(SELECT g.at + e.ms * interval '1 millisecond' FROM unnest($9::float8[]) WITH ORDINALITY AS e(ms, k) ORDER BY e.k),
           ${partner === null ? 'NULL' : `(${partner})::jsonb`},
           jsonb_build_array(jsonb_build_object('type', 'email', 'hash', g.h_email), jsonb_build_object('type', 'phone', 'hash', g.h_phone),
                             jsonb_build_object('type', 'name_zip_dob', 'hash', g.h_person))
      FROM g CROSS JOIN m
    RETURNING 1
  ), calls_in AS (
    INSERT INTO search_partner_calls (search_id, partner_id, part_day, offer_ids, status, requested_at, answered_at, latency_ms, result_count, detail)
    SELECT g.id, c.partner_id, lr_id_day(g.id), c.offer_ids, c.status, g.at + (c.requested_at - m.created_at), g.at + (c.answered_at - m.created_at),
           c.latency_ms, c.result_count, c.detail
      FROM g CROSS JOIN m JOIN search_partner_calls c ON c.search_id = m.id AND c.part_day = m.part_day
    RETURNING 1
  ), sold AS MATERIALIZED (
    SELECT g.*, g.rids[g.pos] AS result_id, g.lead_at + interval '30 milliseconds' AS sold_at, g.lead_at + interval '110 milliseconds' AS decided_at,
           COALESCE((SELECT jsonb_agg(jsonb_build_object('scope', x.scope, 'period', x.period, 'period_start', x.period_start) ORDER BY x.campaign_cap, x.period)
                       FROM (SELECT cp.campaign_id IS NOT NULL AS campaign_cap, cp.period,
                                    CASE WHEN cp.campaign_id IS NULL THEN 'offer:' || cp.offer_id ELSE 'campaign:' || cp.campaign_id || ':offer:' || cp.offer_id END AS scope,
                                    CASE WHEN cp.period = 'total' THEN timestamptz 'epoch'
                                         ELSE date_trunc(cp.period, g.lead_at AT TIME ZONE cp.timezone) AT TIME ZONE cp.timezone END AS period_start
                               FROM caps cp CROSS JOIN m
                              WHERE cp.offer_id = g.offer_id AND (cp.campaign_id IS NULL OR cp.campaign_id = m.campaign_id)) x), '[]'::jsonb) AS cap_slots
      FROM g WHERE g.lead_id IS NOT NULL
  ), leads_in AS (
    INSERT INTO leads (id, search_id, result_id, kind, affiliate_id, campaign_id, offer_id, api_key_id, program_id, answers, lead, tracking,
                       consumer_ip, ip_source, is_test, status, code, reason, payout, created_at, decided_at, lead_group_id, decided_by)
    SELECT s.lead_id, s.id, s.result_id, 'result_submit', m.affiliate_id, m.campaign_id, s.offer_id, m.api_key_id, s.program_id, s.answers, s.lead, m.tracking,
           m.consumer_ip, m.ip_source, m.is_test, 'accepted', 'ACCEPTED', 'Lead accepted', s.payout, s.lead_at, s.decided_at, s.id, 'buyer'
      FROM sold s CROSS JOIN m
    RETURNING 1
  ), sales_in AS (
    INSERT INTO sales (lead_id, search_id, lead_group_id, offer_id, school_id, campaign_id, affiliate_id, offer_type, payout, price, status, created_at, updated_at, cap_slots)
    SELECT s.lead_id, s.id, s.id, s.offer_id, s.school_id, m.campaign_id, m.affiliate_id, s.offer_type, s.payout, s.price, 'accepted', s.sold_at, s.decided_at, s.cap_slots
      FROM sold s CROSS JOIN m
    RETURNING 1
  ), consent_in AS (
    INSERT INTO consent_evidence (lead_id, tcpa_consent, tcpa_text, button_label, ip, consented_at, form_cert_url, universal_lead_cert, created_at)
    SELECT s.lead_id, true, s.tcpa_text, 'Request info', m.consumer_ip, s.lead_at, m.form_cert_url, m.universal_lead_cert, s.sold_at
      FROM sold s CROSS JOIN m
    RETURNING 1
  ), keys_in AS (
    INSERT INTO dedupe_keys (lead_id, key_type, key_hash, offer_id, school_id, affiliate_id, accepted_at)
    SELECT s.lead_id, k.key_type, k.key_hash, s.offer_id, s.school_id, m.affiliate_id, s.sold_at
      FROM sold s CROSS JOIN m
      CROSS JOIN LATERAL (VALUES ('email', s.h_email), ('phone', s.h_phone), ('name_zip_dob', s.h_person)) AS k(key_type, key_hash)
    RETURNING 1
  ), attempts_in AS (
    INSERT INTO delivery_attempts (lead_id, attempt, started_at, finished_at, outcome, http_status, latency_ms, detail)
    SELECT s.lead_id, 1, s.decided_at - interval '20 milliseconds', s.decided_at, 'accepted', 200, 17, 'buyer lead id bench-' || substr(md5(s.lead_id::text), 1, 12)
      FROM sold s
    RETURNING 1
  ), caps_in AS (
    INSERT INTO cap_usage AS u (scope, period, period_start, used, updated_at)
    SELECT x->>'scope', x->>'period', (x->>'period_start')::timestamptz, count(*), max(s.sold_at)
      FROM sold s CROSS JOIN LATERAL jsonb_array_elements(s.cap_slots) AS x
     GROUP BY 1, 2, 3
     -- in one order: batches on two connections that meet on a slot wait for each other, never deadlock
     ORDER BY 1, 2, 3
    ON CONFLICT (scope, period, period_start) DO UPDATE SET used = u.used + EXCLUDED.used, updated_at = greatest(u.updated_at, EXCLUDED.updated_at)
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM searches_in)::int AS searches, (SELECT count(*) FROM calls_in)::int AS calls, (SELECT count(*) FROM leads_in)::int AS leads,
         (SELECT count(*) FROM sales_in)::int AS sales, (SELECT count(*) FROM consent_in)::int AS consents, (SELECT count(*) FROM keys_in)::int AS keys,
         (SELECT count(*) FROM attempts_in)::int AS attempts, (SELECT count(*) FROM caps_in)::int AS cap_rows,
         (SELECT min(id::text) FROM g WHERE lead_id IS NOT NULL) AS sample`;
}

/**
 * The generated rows read back as the system reads them: the search's person
 * keys are what libs/domain makes of its lead, its results are rebuilt whole
 * by the `results` view, and its submit's dedupe keys are its person keys.
 */
async function checkGenerated(pg: Client, searchId: string, results: number): Promise<void> {
  const s = (
    await pg.query<{ lead: Lead; person_keys: Array<{ type: string; hash: string }>; day_ok: boolean }>(
      `SELECT lead, person_keys, part_day = lr_id_day(id) AS day_ok FROM searches WHERE id = $1 AND part_day = lr_id_day($1)`,
      [searchId],
    )
  ).rows[0];
  if (!s?.day_ok) throw new Error(`generated search ${searchId} is not in its id's day partition`);
  const expected = leadDedupeKeys(s.lead)
    .map((k) => `${k.type}:${k.hash}`)
    .sort();
  const stored = s.person_keys.map((k) => `${k.type}:${k.hash}`).sort();
  if (JSON.stringify(stored) !== JSON.stringify(expected))
    throw new Error(`generated person keys differ from libs/domain's: ${stored.join(', ')} vs ${expected.join(', ')}`);
  const keys = (
    await pg.query<{ k: string }>(
      `SELECT d.key_type || ':' || d.key_hash AS k FROM dedupe_keys d JOIN leads l ON l.id = d.lead_id WHERE l.search_id = $1`,
      [searchId],
    )
  ).rows
    .map((r) => r.k)
    .sort();
  if (JSON.stringify(keys) !== JSON.stringify(expected))
    throw new Error(`a generated submit's dedupe keys differ from its search's person keys`);
  const entries = Number(
    (
      await pg.query<{ n: string }>(
        `SELECT count(*) AS n FROM results WHERE search_id = $1 AND part_day = lr_id_day($1) AND entry IS NOT NULL`,
        [searchId],
      )
    ).rows[0].n,
  );
  if (entries !== results)
    throw new Error(`the results view rebuilds ${entries} of the ${results} results of generated search ${searchId}`);
}

/** A connection for the bulk load: its commits need not wait for the disk, its CTEs fit in memory, timestamps print in UTC, no JIT (one plan per batch). */
async function connect(databaseUrl: string): Promise<Client> {
  const pg = new Client({ connectionString: databaseUrl, application_name: 'lead-router-history' });
  await pg.connect();
  try {
    await pg.query(`SET synchronous_commit = off; SET work_mem = '256MB'; SET TimeZone = 'UTC'; SET jit = off`);
  } catch (e) {
    await pg.end();
    throw e;
  }
  return pg;
}

/** Generates the history (see the top of this file) on `databaseUrl`; `log` gets a progress line per batch. */
export async function generateHistory(databaseUrl: string, o: HistoryOptions, log: (msg: string) => void): Promise<HistoryResult> {
  const batch = o.batch ?? DEFAULT_BATCH;
  const submitEvery = o.submitEvery ?? DEFAULT_SUBMIT_EVERY;
  const jobs = o.jobs ?? DEFAULT_JOBS;
  if (!Number.isInteger(o.searches) || o.searches < 1) throw new Error(`searches must be a positive integer, got ${o.searches}`);
  if (!Number.isInteger(o.days) || o.days < 1) throw new Error(`days must be a positive integer, got ${o.days}`);
  if (!Number.isInteger(batch) || batch < 1) throw new Error(`batch must be a positive integer, got ${batch}`);
  if (!Number.isInteger(submitEvery) || submitEvery < 1) throw new Error(`submitEvery must be a positive integer, got ${submitEvery}`);
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`jobs must be a positive integer, got ${jobs}`);
  const started = performance.now();
  const pg = await connect(databaseUrl);
  try {
    const size = async () => Number((await pg.query<{ b: string }>(`SELECT pg_database_size(current_database()) AS b`)).rows[0].b);
    const before = await size();

    const m = await modelSearch(pg, o.modelSearchId);
    const choices = await submitChoices(pg, m);
    const zip = m.lead.address?.zip_code;
    const dob = m.lead.personal?.date_of_birth;
    const zipHash = zip === undefined ? undefined : hashOf('zip', zip);
    const dobHash = dob === undefined ? undefined : hashOf('dob', dob);
    if (!zipHash || !dobHash)
      throw new Error(`the model search's lead has no usable ZIP and date of birth: its person keys would not be three`);

    const until = o.until ?? new Date();
    const from = new Date(until.getTime() - o.days * 86_400_000);
    const stepMs = (until.getTime() - from.getTime()) / o.searches;
    const firstDay = dayOf(from);
    const lastDay = dayOf(new Date(until.getTime() - 1));
    const days: string[] = [];
    for (let d = firstDay; d <= lastDay; d = addDays(d, 1)) days.push(d);

    // The day partitions of the history (today's and the coming days' exist: the services made them).
    const executes = { query: async (sql: string, params?: unknown[]) => (await pg.query(sql, params)).rows };
    let partitionsCreated = 0;
    for (const d of days) partitionsCreated += await createDayPartitions(executes, { from: d, to: null, suffix: daySuffix(d) });
    // The model's templates, once per day: what a day's first search of the campaign writes.
    const templates = await pg.query(
      `INSERT INTO result_templates (part_day, digest, offer_id, payout, body)
       SELECT d.day, t.digest, t.offer_id, t.payout, t.body
         FROM result_templates t CROSS JOIN unnest($3::date[]) AS d(day)
        WHERE t.part_day = $1::date AND t.digest = ANY($2::uuid[])
       ON CONFLICT DO NOTHING`,
      [m.part_day, [...new Set(m.result_templates)], days],
    );
    log(
      `history: ${o.searches.toLocaleString('en-US')} searches over ${o.days} days (${firstDay} to ${lastDay}), ${days.length} day partitions ` +
        `(${partitionsCreated} tables created), ${templates.rowCount ?? 0} templates copied; model ${m.id} (${m.result_order.length} results), ` +
        `a submit on one search in ${submitEvery}`,
    );

    const sql = batchStatement(
      withResultIds(m.offer_decisions, m.result_order),
      m.result_partner === null ? null : withResultIds(m.result_partner, m.result_order),
    );
    const generateStarted = performance.now();
    let next = 0;
    let done = 0;
    let submits = 0;
    let failed = false;
    // `jobs` connections take the batches in turn (PostgreSQL runs each statement on one core).
    const worker = async () => {
      const db = await connect(databaseUrl);
      try {
        while (!failed && next < o.searches) {
          const lo = next;
          next += batch;
          const hi = Math.min(o.searches, lo + batch) - 1;
          const r = (
            await db.query<{ searches: number; leads: number; sample: string | null }>(sql, [
              lo,
              hi,
              from,
              stepMs,
              submitEvery,
              m.id,
              m.part_day,
              m.result_order.length,
              m.expires_ms,
              JSON.stringify(choices),
              zipHash,
              dobHash,
              JSON.stringify(m.lead),
              m.result_templates,
            ])
          ).rows[0];
          if (lo === 0 && r.sample) await checkGenerated(db, r.sample, m.result_order.length);
          done += r.searches;
          submits += r.leads;
          const s = (performance.now() - generateStarted) / 1000;
          const rate = done / s;
          log(
            `history: ${done.toLocaleString('en-US')} / ${o.searches.toLocaleString('en-US')} searches, ${submits.toLocaleString('en-US')} submits, ` +
              `${s.toFixed(1)} s (${Math.round(rate).toLocaleString('en-US')}/s, about ${Math.round((o.searches - done) / rate)} s to go)`,
          );
        }
      } catch (e) {
        failed = true;
        throw e;
      } finally {
        await db.end();
      }
    };
    const outcomes = await Promise.allSettled(Array.from({ length: jobs }, worker));
    const failure = outcomes.find((x): x is PromiseRejectedResult => x.status === 'rejected');
    if (failure) throw failure.reason;
    const generateMs = performance.now() - generateStarted;
    let t = performance.now();
    await pg.query('ANALYZE');
    const analyzeMs = performance.now() - t;
    // The bulk's dirty pages written now, not by a checkpoint during whatever runs next.
    t = performance.now();
    await pg.query('CHECKPOINT');
    const checkpointMs = performance.now() - t;
    const after = await size();
    return {
      searches: done,
      submits,
      days: o.days,
      firstDay,
      lastDay,
      partitionsCreated,
      templatesCopied: templates.rowCount ?? 0,
      modelSearchId: m.id,
      resultsPerSearch: m.result_order.length,
      ms: {
        generate: Math.round(generateMs),
        analyze: Math.round(analyzeMs),
        checkpoint: Math.round(checkpointMs),
        total: Math.round(performance.now() - started),
      },
      databaseBytes: { before, after },
    };
  } finally {
    await pg.end();
  }
}

async function cli(): Promise<void> {
  const { values } = parseArgs({
    options: {
      searches: { type: 'string', default: '1000000' },
      days: { type: 'string', default: '30' },
      batch: { type: 'string', default: String(DEFAULT_BATCH) },
      'submit-every': { type: 'string', default: String(DEFAULT_SUBMIT_EVERY) },
      jobs: { type: 'string', default: String(DEFAULT_JOBS) },
      model: { type: 'string' },
      'database-url': { type: 'string', default: BENCH_STATE.databaseUrl },
    },
    strict: true,
  });
  const log = (msg: string) => void process.stderr.write(`[history] ${msg}\n`);
  const r = await generateHistory(
    values['database-url']!,
    {
      searches: Number(values.searches),
      days: Number(values.days),
      batch: Number(values.batch),
      submitEvery: Number(values['submit-every']),
      jobs: Number(values.jobs),
      modelSearchId: values.model,
    },
    log,
  );
  const mb = (b: number) => (b / 1024 / 1024).toFixed(0);
  process.stdout.write(
    `${r.searches} searches (${r.submits} with a submit) over ${r.days} days, ${r.firstDay} to ${r.lastDay}: generated in ${(r.ms.generate / 1000).toFixed(1)} s, ` +
      `ANALYZE ${(r.ms.analyze / 1000).toFixed(1)} s, CHECKPOINT ${(r.ms.checkpoint / 1000).toFixed(1)} s; database ${mb(r.databaseBytes.before)} MB -> ${mb(r.databaseBytes.after)} MB\n`,
  );
}

if (require.main === module) {
  cli().catch((e: unknown) => {
    process.stderr.write(`[history] failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exitCode = 1;
  });
}
