import type { Lead, PersonKeySecret } from '@lr/domain';
import { Client } from 'pg';
import { createDayPartitions } from '../queries/day-partitions';
import { filled, run, statement } from '../queries/sql';

/**
 * A synthetic history for the storage bench (bench/generate-history.ts;
 * bench/results/performance-history.md, "Storage"): finished searches copied from a model
 * search of the database, with their partner calls and, for some, a sold
 * and accepted submit, generated in PostgreSQL in batches (no row crosses
 * the wire) and stored the way the system stores them (docs/storage.md).
 * Only the bench uses it; its statements are declared and typed as every
 * repository's.
 */

/** sha256 hex of a SQL text expression, as libs/domain hashes (UTF-8 bytes, lower-case hex). */
const h = (expr: string) => `encode(sha256(convert_to(${expr}, 'UTF8')), 'hex')`;
/** The person key of a sha256 hex expression, as libs/domain keyedPersonKey makes it, under the secret `open` set for the session. */
const keyed = (expr: string) => `encode(hmac(${expr}, current_setting('${SECRET_SETTING}'), 'sha256'), 'hex')`;
const SECRET_SETTING = 'lead_router.person_key_secret';

/** A UUIDv7 of the time in the SQL expression `at` (ms precision), its other bits random (from a v4: its variant bits are v7's too). */
const uuidV7 = (
  at: string,
) => `(SELECT (substr(t, 1, 8) || '-' || substr(t, 9, 4) || '-7' || substr(r, 14, 3) || '-' || substr(r, 17, 4) || '-' || substr(r, 21, 12))::uuid
     FROM (SELECT lpad(to_hex(floor(extract(epoch FROM ${at}) * 1000)::bigint), 12, '0') AS t, replace(gen_random_uuid()::text, '-', '') AS r) v7)`;

/**
 * A JSON text of the model with one search's own result ids in it (`g.rids`,
 * parallel to the model's `result_order`): the text around each id (`parts`,
 * a text[] parameter) with, after each part but the last, the result id at
 * that position (`positions`, an int[] parameter one shorter). See
 * modelTextParams.
 */
const MODEL_TEXT = (parts: string, positions: string) =>
  `(SELECT string_agg(x.part || COALESCE(g.rids[x.pos]::text, ''), '' ORDER BY x.k)
      FROM unnest(${parts}::text[], ${positions}::int[]) WITH ORDINALITY AS x(part, pos, k))`;

/** The parameters of MODEL_TEXT for a JSON text of the model: the text around each of its result ids, and their positions in `order`. */
export function modelTextParams(text: string, order: readonly string[]): [string[], number[]] {
  const position = new Map(order.map((id, k) => [id, k + 1]));
  const parts: string[] = [];
  const positions: number[] = [];
  let last = 0;
  for (const m of text.matchAll(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g)) {
    const k = position.get(m[0]);
    if (k === undefined) continue;
    parts.push(text.slice(last, m.index));
    positions.push(k);
    last = m.index! + m[0].length;
  }
  parts.push(text.slice(last));
  return [parts, positions];
}

/** The model: a finished, unsubmitted live search with results ($1: this one, or null: the newest with the most results). */
const MODEL_SEARCH = statement(
  'historyModelSearch',
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
);

/** The model's own offers' results, with what a submit of each and its sale write. */
const SUBMIT_CHOICES = statement(
  'historySubmitChoices',
  `SELECT x.pos::int, t.offer_id, o.school_id, o.offer_type, o.price::text AS price, t.body, o.tcpa_text
   FROM unnest($2::uuid[]) WITH ORDINALITY AS x(digest, pos)
   JOIN result_templates t ON t.part_day = $1::date AND t.digest = x.digest
   JOIN offers o ON o.id = t.offer_id AND o.source = 'own'
  ORDER BY x.pos`,
);

/** The model's templates copied into each day ($3) of the history: what a day's first search of the campaign writes. */
const COPY_TEMPLATES = statement(
  'historyCopyTemplates',
  `INSERT INTO result_templates (part_day, digest, offer_id, payout, body)
   SELECT d.day, t.digest, t.offer_id, t.payout, t.body
     FROM result_templates t CROSS JOIN unnest($3::date[]) AS d(day)
    WHERE t.part_day = $1::date AND t.digest = ANY($2::uuid[])
   ON CONFLICT DO NOTHING
   RETURNING 1`,
);

/**
 * One batch: searches $1..$2 of the history, with their partner calls and,
 * for one in $5, the submit's rows. Parameters: $1 first, $2 last, $3 the
 * history's start, $4 ms between searches, $5 submit every, $6 model id,
 * $7 model day, $8 the model's results, $9 its results' expiries (ms after
 * its creation), $10 submit choices (JSON), $11 the zip hash and $12 the date
 * of birth hash of the model's lead, $13 its lead, $14 its results'
 * templates, $15-$16 its offer decisions and $17-$18 its result partners
 * (null: none) as MODEL_TEXT parameters. What the model's row holds is read
 * once (`m`) or passed in: a value read from its row per generated row would
 * be detoasted each time.
 */
const BATCH = statement(
  'historyBatch',
  `WITH m AS MATERIALIZED (
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
           ${keyed(h('p.email'))} AS h_email, ${keyed(h('p.phone'))} AS h_phone, ${keyed(h(`${h('lower(p.last_name)')} || '|' || $11 || '|' || $12`))} AS h_person,
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
           m.state_version + CASE WHEN g.lead_id IS NULL THEN 0 ELSE 1 END, ${MODEL_TEXT('$15', '$16')}::jsonb,
           g.rids, $14::uuid[], ARRAY(SELECT g.at + e.ms * interval '1 millisecond' FROM unnest($9::float8[]) WITH ORDINALITY AS e(ms, k) ORDER BY e.k),
           CASE WHEN $17::text[] IS NULL THEN NULL ELSE ${MODEL_TEXT('$17', '$18')}::jsonb END,
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
         (SELECT min(id::text) FROM g WHERE lead_id IS NOT NULL) AS sample`,
);

/** The generated search as the system reads it back (checkGenerated). */
const GENERATED_SEARCH = statement(
  'historyGeneratedSearch',
  `SELECT lead, person_keys, part_day = lr_id_day(id) AS day_ok FROM searches WHERE id = $1 AND part_day = lr_id_day($1)`,
);

const GENERATED_KEYS = statement(
  'historyGeneratedKeys',
  `SELECT d.key_type || ':' || d.key_hash AS k FROM dedupe_keys d JOIN leads l ON l.id = d.lead_id WHERE l.search_id = $1`,
);

const GENERATED_ENTRIES = statement(
  'historyGeneratedEntries',
  `SELECT count(*) AS n FROM results WHERE search_id = $1 AND part_day = lr_id_day($1) AND entry IS NOT NULL`,
);

const DATABASE_SIZE = statement('historyDatabaseSize', `SELECT pg_database_size(current_database()) AS b`);

/** The model search, as the generator copies it. */
export interface HistoryModel {
  id: string;
  /** Its day partition, `YYYY-MM-DD`. */
  day: string;
  lead: Lead;
  /** Its `offer_decisions` and `result_partner` as JSON text (null: none). */
  offerDecisions: string;
  resultPartner: string | null;
  resultOrder: string[];
  resultTemplates: string[];
  /** Each result's expiry, ms after the search's creation. */
  expiresMs: number[];
}

/** A result of the model a history submit may pick (an own offer's), with its template's text. */
export interface HistoryChoice {
  pos: number;
  offerId: string;
  schoolId: string;
  offerType: string;
  price: string | null;
  body: string;
  tcpaText: string | null;
}

/** What one batch wrote. */
export interface HistoryBatch {
  searches: number;
  leads: number;
  /** A generated search with a submit (to check), if the batch has one. */
  sample: string | null;
}

/** The parameters of a batch besides its range: the history's start and step, and the model. */
export interface BatchModel {
  from: Date;
  stepMs: number;
  submitEvery: number;
  modelId: string;
  modelDay: string;
  results: number;
  expiresMs: number[];
  choicesJson: string;
  zipHash: string;
  dobHash: string;
  leadJson: string;
  templates: string[];
  decisions: [string[], number[]];
  partner: [string[], number[]] | null;
}

export class SyntheticHistory {
  private constructor(private readonly pg: Client) {}

  /** A connection for the bulk load: its commits need not wait for the disk, its CTEs fit in memory, timestamps print in UTC, no JIT (one plan per batch). */
  static async open(databaseUrl: string, secret: PersonKeySecret): Promise<SyntheticHistory> {
    const pg = new Client({ connectionString: databaseUrl, application_name: 'lead-router-history' });
    await pg.connect();
    try {
      await pg.query(`SET synchronous_commit = off; SET work_mem = '256MB'; SET TimeZone = 'UTC'; SET jit = off`);
      // The person key secret for the session's generated keys (a setting, so no statement text carries it).
      await pg.query(`SELECT set_config('${SECRET_SETTING}', $1, false)`, [secret]);
    } catch (e) {
      await pg.end();
      throw e;
    }
    return new SyntheticHistory(pg);
  }

  close(): Promise<void> {
    return this.pg.end();
  }

  async databaseBytes(): Promise<number> {
    return Number((await run(this.pg, DATABASE_SIZE))[0].b ?? 0);
  }

  /** The model search (`id`, or the newest finished unsubmitted one with the most results); undefined when there is none. */
  async modelSearch(id: string | undefined): Promise<HistoryModel | undefined> {
    const [r] = await run(this.pg, MODEL_SEARCH, [id ?? null]);
    if (!r) return undefined;
    return {
      id: r.id,
      day: filled(r.part_day, 'part_day'),
      lead: r.lead as Lead,
      offerDecisions: filled(r.offer_decisions, 'offer_decisions'),
      resultPartner: r.result_partner,
      resultOrder: filled(r.result_order, 'result_order'),
      resultTemplates: filled(r.result_templates, 'result_templates'),
      expiresMs: filled(r.expires_ms, 'expires_ms'),
    };
  }

  /** The model's results of own offers, in its order. */
  async submitChoices(m: HistoryModel): Promise<HistoryChoice[]> {
    return (await run(this.pg, SUBMIT_CHOICES, [m.day, m.resultTemplates])).map((r) => ({
      pos: filled(r.pos, 'pos'),
      offerId: r.offer_id,
      schoolId: r.school_id,
      offerType: r.offer_type,
      price: r.price,
      body: r.body,
      tcpaText: r.tcpa_text,
    }));
  }

  /** The day partitions of the history's days that are missing; answers how many tables it created. */
  async createDays(days: readonly string[], suffix: (day: string) => string): Promise<number> {
    const executes = { query: async (sql: string, params?: unknown[]) => (await this.pg.query(sql, params)).rows };
    let created = 0;
    for (const d of days) created += await createDayPartitions(executes, { from: d, to: null, suffix: suffix(d) });
    return created;
  }

  /** Copies the model's templates into each of `days`; answers how many rows it wrote. */
  async copyTemplates(modelDay: string, digests: readonly string[], days: readonly string[]): Promise<number> {
    return (await run(this.pg, COPY_TEMPLATES, [modelDay, digests, days])).length;
  }

  /** Writes searches lo..hi of the history. */
  async batch(lo: number, hi: number, m: BatchModel): Promise<HistoryBatch> {
    const [r] = await run(this.pg, BATCH, [
      lo,
      hi,
      m.from,
      m.stepMs,
      m.submitEvery,
      m.modelId,
      m.modelDay,
      m.results,
      m.expiresMs,
      m.choicesJson,
      m.zipHash,
      m.dobHash,
      m.leadJson,
      m.templates,
      ...m.decisions,
      ...(m.partner ?? [null, null]),
    ]);
    return { searches: r.searches ?? 0, leads: r.leads ?? 0, sample: r.sample };
  }

  /** A generated search as stored: its lead, person keys and whether it is in its id's day partition. */
  async generatedSearch(
    searchId: string,
  ): Promise<{ lead: Lead; personKeys: Array<{ type: string; hash: string }>; inItsDay: boolean } | undefined> {
    const [r] = await run(this.pg, GENERATED_SEARCH, [searchId]);
    return r
      ? { lead: r.lead as Lead, personKeys: (r.person_keys ?? []) as Array<{ type: string; hash: string }>, inItsDay: r.day_ok === true }
      : undefined;
  }

  /** The dedupe keys of the generated search's submit, as `type:hash`. */
  async generatedKeys(searchId: string): Promise<string[]> {
    return (await run(this.pg, GENERATED_KEYS, [searchId])).map((r) => r.k ?? '');
  }

  /** How many of the generated search's results the `results` view rebuilds whole. */
  async generatedEntries(searchId: string): Promise<number> {
    return Number((await run(this.pg, GENERATED_ENTRIES, [searchId]))[0].n ?? 0);
  }

  /** Statistics for the new rows, as autovacuum would gather them. */
  async analyze(): Promise<void> {
    await this.pg.query('ANALYZE');
  }

  /** The bulk's dirty pages written now, not by a checkpoint during whatever runs next. */
  async checkpoint(): Promise<void> {
    await this.pg.query('CHECKPOINT');
  }
}
