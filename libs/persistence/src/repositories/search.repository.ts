import type { SearchMeta } from '@lr/contracts';
import { CapSlot, cents, DedupeKey, Lead, RankCandidate, SaleFacts, SealedContact } from '@lr/domain';
import { DataSource } from 'typeorm';
import type { Queryable } from '../queries/queryable';
import type { RowTypes } from '../queries/row-types.generated';
import { inTransaction, poolOf, run, statementPerDay, type WithDocuments } from '../queries/sql';
import { LAST_SALES_TO_PERSON, lastSalesOf } from '../queries/dedupe-keys';
import { CAP_USAGE, capUsageOf, LIVE_SALES, liveSalesOf, slotParams } from '../queries/sale-facts';
import { SEARCH_META_COLUMNS, SearchMetaColumns, searchMetaOf } from '../queries/search-meta';
import { SHOWN } from '../queries/shown-results';
import type { NewResult, ResultTemplateRow } from '../queries/stored-result';
import { SUPPRESSED } from '../queries/suppressions';
import { DayPartitions, idDay } from '../partitions/partition-days';

/** Why an offer was or was not shown on a search (operators only: `searches.offer_decisions`). */
export interface OfferDecision {
  shown: boolean;
  reason?: string;
  detail?: string;
  result_id?: string;
  partner?: string;
}

/** A search as it is first stored, with its first results and its partner calls. */
export interface NewSearch {
  id: string;
  affiliateId: string;
  campaignId: string;
  apiKeyId: string;
  isTest: boolean;
  lead: Lead;
  tracking: Record<string, string>;
  consumerIp: string;
  ipSource: 'consumer' | 'caller_server';
  tcpaConsent: boolean | null;
  formCertUrl: string | null;
  universalLeadCert: string | null;
  createdAt: Date;
  closesAt: Date;
  /** The person's duplicate keys (none for a test search): partner answers re-check against them. */
  personKeys: readonly DedupeKey[];
  /** The contact data sealed (libs/domain splitContact): `lead`, `tracking` and `consumerIp` hold the readable part. Null: none kept. */
  contact: SealedContact | null;
  decisions: Record<string, OfferDecision>;
  results: readonly NewResult[];
  partnerCalls: ReadonlyArray<{ partnerId: string; offerIds: string[] }>;
}

/** A result already shown on a search, with what it ranks by. */
export interface ShownResult extends RankCandidate {
  resultId: string;
}

/** What a partner's answer to a search needs, read in one statement (partnerAnswerContext). */
export interface PartnerAnswerContext {
  campaignId: string;
  isTest: boolean;
  closesAt: Date;
  lead: Lead;
  /** searches.state_version: the answer is written only on this version (saved optimistically). */
  version: number;
  resultOrder: string[];
  /** The answering partners' calls: each one's offers (its answer counts only for these), and whether it still takes an answer. */
  calls: Array<{ partnerId: string; offerIds: string[]; pending: boolean }>;
  /** Whether any of those calls is pending; for none, nothing below is read. */
  pending: boolean;
  shown: ShownResult[];
  /** The facts the answer's offers are judged on now; `lastSales` null when a live search has no stored person keys (stored before they were kept). */
  facts: Omit<SaleFacts, 'lastSales'> & { lastSales: SaleFacts['lastSales'] | null };
}

/** The result columns of new results, parallel arrays in the order given (SQL parameters). */
function resultColumns(results: readonly NewResult[]): { ids: string[]; templates: string[]; expires: Date[]; partner: string | null } {
  const partner = results.filter((r) => r.partnerData !== null);
  return {
    ids: results.map((r) => r.id),
    templates: results.map((r) => r.template.digest),
    expires: results.map((r) => r.expiresAt),
    partner: partner.length === 0 ? null : JSON.stringify(Object.fromEntries(partner.map((r) => [r.id, r.partnerData]))),
  };
}

/**
 * The decisions as stored (`offer_decisions`): only the offers not shown.
 * A shown offer's decision is its result (OFFER_DECISIONS joins them back),
 * two fifths of a 50-offer search's row otherwise.
 */
function storedDecisions(decisions: Record<string, OfferDecision>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(decisions).filter(([, d]) => !d.shown)));
}

/** The offers a change shows: their earlier decisions (asked of a partner, say) are dropped from `offer_decisions`. */
function shownOffers(decisions: Record<string, OfferDecision>): string[] {
  return Object.entries(decisions)
    .filter(([, d]) => d.shown)
    .map(([offerId]) => offerId);
}

/** Templates as one JSON array parameter, each once. */
function templatesJson(templates: readonly ResultTemplateRow[]): string {
  const seen = new Set<string>();
  const rows: string[] = [];
  for (const t of templates) {
    if (seen.has(t.digest)) continue;
    seen.add(t.digest);
    rows.push(
      `{"digest":"${t.digest}","offer_id":"${t.offerId}","payout":${t.payout === null ? 'null' : `"${t.payout}"`},"body":${JSON.stringify(t.body)}}`,
    );
  }
  return `[${rows.join(',')}]`;
}

/** INSERT of templates into the search's day partition (`day`: its DATE literal), from a JSON array parameter (templatesJson). */
const TEMPLATES_INSERT = (day: string, rowsParam: string, where: string) =>
  `INSERT INTO result_templates (part_day, digest, offer_id, payout, body)
   SELECT ${day}, x.digest, x.offer_id, x.payout, x.body
     FROM jsonb_to_recordset(${rowsParam}::jsonb) AS x(digest uuid, offer_id uuid, payout numeric, body text) ${where}
   ON CONFLICT DO NOTHING`;

/** How many of the templates in `digestsParam` the search's day partition lacks, besides those `insertedCte` wrote. */
const MISSING_TEMPLATES = (day: string, digestsParam: string, insertedCte: string) =>
  `(SELECT count(*) FROM unnest(${digestsParam}::uuid[]) AS d(digest)
     WHERE d.digest NOT IN (SELECT digest FROM ${insertedCte})
       AND NOT EXISTS (SELECT 1 FROM result_templates t WHERE t.part_day = ${day} AND t.digest = d.digest))::int`;

/** What the read of partners' answers needs: the search, the answering partners' calls, the answers' offers and their cap slots now. */
export interface AnswerContextQuery {
  searchId: string;
  partnerIds: string[];
  offerIds: string[];
  slots: readonly CapSlot[];
}

/** The write of partners' answers: each call's outcome, and the change to the search they make together. */
export interface AnswerWrite {
  answers: Array<{ partnerId: string; outcome: string; latencyMs: number; resultCount: number; detail: string | null }>;
  change: { order: string[]; decisions: Record<string, OfferDecision>; added: readonly NewResult[] };
}

/** The JSON documents (and arrays) of MERGE_CONTEXT, as it builds them. */
interface AnswerContextDocuments {
  lead: Lead;
  result_order: string[];
  calls: Array<{ partner_id: string; offer_ids: string[]; pending: boolean }>;
  live_sales: Parameters<typeof liveSalesOf>[0];
  cap_usage: Parameters<typeof capUsageOf>[0];
  last_sales: Parameters<typeof lastSalesOf>[0];
  /**
   * Each shown result as [id, offer_id, school_id, priority, source, name, payout]: an array per result
   * rather than an object, which PostgreSQL builds and node parses without 50 times seven key names
   * (a seventh of the read's cost in PostgreSQL and a third in node, measured: bench/results/performance-history.md).
   */
  shown: Array<[string, string, string, number, 'own' | 'partner', string, string | null]> | null;
}

function answerContextParams(q: AnswerContextQuery): unknown[] {
  return [q.searchId, q.partnerIds, q.offerIds, ...slotParams(q.slots)];
}

function answerContextOf(row: RowTypes['mergeContext'] | undefined): PartnerAnswerContext | undefined {
  if (!row) return undefined;
  const r = row as WithDocuments<'mergeContext', AnswerContextDocuments>;
  return {
    campaignId: r.campaign_id,
    isTest: r.is_test,
    closesAt: new Date(r.closes_at),
    lead: r.lead,
    version: Number(r.state_version),
    resultOrder: r.result_order,
    calls: r.calls.map((c) => ({ partnerId: c.partner_id, offerIds: c.offer_ids, pending: c.pending })),
    pending: r.pending === true,
    shown: (r.shown ?? []).map(([resultId, offerId, schoolId, priority, source, name, payout]) => ({
      resultId,
      offerId,
      schoolId,
      priority,
      source,
      name,
      ...(payout !== null ? { payout: cents(payout) } : {}),
    })),
    facts: {
      liveSales: liveSalesOf(r.live_sales),
      capUsage: capUsageOf(r.cap_usage),
      lastSales: r.has_person_keys === true || r.is_test ? lastSalesOf(r.last_sales) : null,
      suppressed: r.suppressed === true,
    },
  };
}

function answerParams(
  searchId: string,
  version: number,
  answers: AnswerWrite['answers'],
  change: AnswerWrite['change'],
  templates: readonly ResultTemplateRow[],
): unknown[] {
  const calls = answers.map((a) => ({
    partner_id: a.partnerId,
    outcome: a.outcome,
    latency_ms: a.latencyMs,
    result_count: a.resultCount,
    detail: a.detail,
  }));
  const added = resultColumns(change.added);
  return [
    searchId,
    version,
    change.order,
    storedDecisions(change.decisions),
    JSON.stringify(calls),
    added.ids,
    added.templates,
    added.expires,
    added.partner,
    templatesJson(templates),
    shownOffers(change.decisions),
  ];
}

/** The meta of a search a write returned, with the order written (not read back: parsing a uuid[] of every result costs more than it checks). */
function savedMeta(r: SearchMetaColumns | undefined, change: AnswerWrite['change']): SearchMeta | undefined {
  return r ? { ...searchMetaOf(r), order: change.order } : undefined;
}

/** How many templates a process remembers as stored before it starts again (a day's distinct templates are far fewer). */
const KNOWN_TEMPLATES_MAX = 50_000;

/**
 * Statements of this repository (prepared per connection: queries/sql.ts),
 * each made per day: the text names the search's day partitions (perDay).
 * A search is written to the partition of lr_id_day(id); idDay(id), which
 * names it in the text, is the same day (a medium test compares them).
 */
const STORE_SEARCH = statementPerDay(
  'storeSearch',
  (on) => `WITH search AS (
         INSERT INTO searches (id, part_day, affiliate_id, campaign_id, api_key_id, is_test, lead, tracking, consumer_ip, ip_source,
                               tcpa_consent, form_cert_url, universal_lead_cert, created_at, closes_at, processing_done_at,
                               state_version, offer_decisions, result_order, result_templates, result_expires, result_partner, person_keys, contact)
         VALUES ($1, lr_id_day($1), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 1, $16, $17::uuid[], $19::uuid[], $20::timestamptz[], $21::jsonb, $18,
                 $24::jsonb)
         ON CONFLICT DO NOTHING
         RETURNING id
       ), templates AS (
         ${TEMPLATES_INSERT(on.day, '$22', 'WHERE EXISTS (SELECT 1 FROM search)')}
         RETURNING digest
       ), calls AS (
         INSERT INTO search_partner_calls (search_id, partner_id, part_day, offer_ids, status)
         SELECT (SELECT id FROM search), x.partner_id, lr_id_day($1), ARRAY(SELECT jsonb_array_elements_text(x.offer_ids)::uuid), 'pending'
           FROM jsonb_to_recordset($23::jsonb) AS x(partner_id uuid, offer_ids jsonb)
          WHERE EXISTS (SELECT 1 FROM search)
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM search)::int AS stored, ${MISSING_TEMPLATES(on.day, '$19', 'templates')} AS missing`,
);

/** Templates a search's results need that its day partition lacks (STORE_SEARCH answered some missing). */
const STORE_TEMPLATES = statementPerDay('storeTemplates', (on) => `${TEMPLATES_INSERT(on.day, '$1', '')}`);

/** The search's row lock a partner answer's merge holds from its read to its write (mergeAnswer). */
const LOCK_SEARCH = statementPerDay('lockSearch', (on) => `SELECT 1 FROM searches s WHERE s.id = $1 AND ${on.days('s')} FOR NO KEY UPDATE`);

const SEARCH_EXISTS = statementPerDay('searchExists', (on) => `SELECT 1 FROM searches s WHERE s.id = $1 AND ${on.days('s')}`);

const SEARCH_CAMPAIGN = statementPerDay(
  'searchCampaign',
  (on) => `SELECT s.campaign_id FROM searches s WHERE s.id = $1 AND ${on.days('s')}`,
);

const PENDING_PARTNER_CALLS = statementPerDay(
  'pendingPartnerCalls',
  (on) => `SELECT c.partner_id, c.offer_ids FROM search_partner_calls c
        WHERE c.search_id = $1 AND ${on.days('c')} AND c.status = 'pending'`,
);

/** The search's results with their templates (SHOWN), the templates' partitions named too. */
const shownOn = (on: DayPartitions) => `${SHOWN('s')} AND ${on.days('t')}`;

/** A search's stored person keys (live searches; null for test searches) as a relation of (key_type, key_hash). */
const STORED_PERSON_KEYS = 'SELECT p.type, p.hash FROM jsonb_to_recordset(s.person_keys) AS p(type text, hash text)';

const MERGE_CONTEXT = statementPerDay(
  'mergeContext',
  (
    on,
  ) => `SELECT s.campaign_id, s.is_test, s.closes_at, s.lead, s.state_version, to_json(s.result_order) AS result_order, s.person_keys IS NOT NULL AS has_person_keys,
              c.calls, c.pending,
              CASE WHEN c.pending THEN (SELECT json_agg(x) FROM (${LIVE_SALES('s.id')}) x) END AS live_sales,
              CASE WHEN c.pending THEN (SELECT json_agg(x) FROM (${CAP_USAGE('$4', '$5', '$6')}) x) END AS cap_usage,
              CASE WHEN c.pending THEN (SELECT json_agg(x) FROM (${LAST_SALES_TO_PERSON(STORED_PERSON_KEYS, 'd.offer_id = ANY($3::uuid[])')}) x) END AS last_sales,
              c.pending AND ${SUPPRESSED(STORED_PERSON_KEYS)} AS suppressed,
              CASE WHEN c.pending THEN (
                SELECT json_agg(json_build_array(u.id, t.offer_id, o.school_id, o.priority, o.source, o.name, t.payout))
                  FROM ${shownOn(on)} JOIN offers o ON o.id = t.offer_id) END AS shown
         FROM searches s
         CROSS JOIN LATERAL (
           SELECT json_agg(json_build_object('partner_id', c.partner_id, 'offer_ids', c.offer_ids, 'pending', c.status = 'pending')) AS calls,
                  bool_or(c.status = 'pending') AS pending
             FROM search_partner_calls c
            WHERE c.search_id = s.id AND c.part_day = s.part_day AND ${on.days('c')} AND c.partner_id = ANY($2::uuid[])) c
        WHERE s.id = $1 AND ${on.days('s')} AND c.calls IS NOT NULL`,
);

const SEARCH_ANSWER = statementPerDay(
  'searchAnswer',
  (on) => `SELECT ${SEARCH_META_COLUMNS}, s.result_order,
              ARRAY(SELECT lr_result_entry(u.id, t.body, u.expires_at) FROM ${shownOn(on)} ORDER BY u.n) AS entries
         FROM searches s WHERE s.id = $1 AND ${on.days('s')}`,
);

const RESULT_REF = statementPerDay(
  'resultRef',
  (on) => `SELECT u.id, s.id AS search_id, s.campaign_id, s.affiliate_id, t.offer_id
         FROM searches s CROSS JOIN LATERAL ${shownOn(on)}
        WHERE s.id = $2 AND ${on.days('s')} AND u.id = $1`,
);

const MERGE_ANSWER = statementPerDay(
  'mergeAnswer',
  (on) => `WITH answer AS (
         SELECT * FROM jsonb_to_recordset($5::jsonb) AS a(partner_id uuid, outcome text, latency_ms int, result_count int, detail text)
       ), search AS (
         UPDATE searches s
            SET result_order = ARRAY(SELECT x.id FROM unnest(s.result_order || $6::uuid[]) WITH ORDINALITY AS x(id, n)
                                      ORDER BY array_position($3::uuid[], x.id) NULLS LAST, x.n),
                result_templates = ARRAY(SELECT x.t FROM unnest(s.result_order || $6::uuid[], s.result_templates || $7::uuid[]) WITH ORDINALITY AS x(id, t, n)
                                          ORDER BY array_position($3::uuid[], x.id) NULLS LAST, x.n),
                result_expires = ARRAY(SELECT x.e FROM unnest(s.result_order || $6::uuid[], s.result_expires || $8::timestamptz[]) WITH ORDINALITY AS x(id, e, n)
                                        ORDER BY array_position($3::uuid[], x.id) NULLS LAST, x.n),
                result_partner = CASE WHEN $9::jsonb IS NULL THEN s.result_partner ELSE COALESCE(s.result_partner, '{}') || $9::jsonb END,
                offer_decisions = (s.offer_decisions || $4::jsonb) - $11::text[],
                state_version = s.state_version + 1,
                processing_done_at = CASE
                  WHEN s.processing_done_at IS NULL
                   AND NOT EXISTS (SELECT 1 FROM search_partner_calls c
                                    WHERE c.search_id = s.id AND c.part_day = s.part_day AND ${on.days('c')} AND c.status = 'pending'
                                      AND c.partner_id NOT IN (SELECT partner_id FROM answer))
                  THEN now() ELSE s.processing_done_at END
          WHERE s.id = $1 AND ${on.days('s')} AND s.state_version = $2
            AND EXISTS (SELECT 1 FROM search_partner_calls c JOIN answer a ON a.partner_id = c.partner_id
                         WHERE c.search_id = $1 AND ${on.days('c')} AND c.status = 'pending')
          RETURNING ${SEARCH_META_COLUMNS}
       ), answered AS (
         UPDATE search_partner_calls c
            SET status = a.outcome, answered_at = now(), latency_ms = a.latency_ms, result_count = a.result_count, detail = a.detail
           FROM answer a
          WHERE c.search_id = $1 AND ${on.days('c')} AND c.partner_id = a.partner_id AND c.status = 'pending' AND EXISTS (SELECT 1 FROM search)
          RETURNING 1
       ), templates AS (
         ${TEMPLATES_INSERT(on.day, '$10', 'WHERE EXISTS (SELECT 1 FROM search)')}
         RETURNING digest
       )
       SELECT *, ${MISSING_TEMPLATES(on.day, '$7', 'templates')} AS missing FROM search`,
);

/**
 * Searches (`searches`, `results`, `search_partner_calls`): a search with its
 * lead, the results shown (each entry exactly as shown, in `result_order`
 * best first), why every offer was or was not shown, its partner calls and
 * its state version (bumped by every change; Redis keeps only the newest).
 */
export class SearchRepository {
  /**
   * Templates this process knows are stored (`<day>|<digest>`): their text is
   * not sent again. A store that finds one missing after all (a database
   * reset under a running process) writes them and forgets what it knew.
   */
  private readonly known = new Set<string>();

  constructor(private readonly db: Queryable) {}

  /** The templates of `results` to send with a write: those not known to be stored in the search's day partition. */
  private unknownTemplates(searchId: string, results: readonly NewResult[]): ResultTemplateRow[] {
    const day = idDay(searchId);
    return results.map((r) => r.template).filter((t) => !this.known.has(`${day}|${t.digest}`));
  }

  /** After a write: the templates are stored, or (some missing) written now and the cache dropped. */
  private async settleTemplates(searchId: string, results: readonly NewResult[], missing: number): Promise<void> {
    if (missing > 0) {
      this.known.clear();
      await run(this.db, STORE_TEMPLATES(idDay(searchId)), [templatesJson(results.map((r) => r.template))]);
      return;
    }
    if (this.known.size > KNOWN_TEMPLATES_MAX) this.known.clear();
    const day = idDay(searchId);
    for (const r of results) this.known.add(`${day}|${r.template.digest}`);
  }

  /**
   * Stores the search with its first results and partner calls, in one
   * statement (one round trip, one commit on the critical path of the search
   * answer). The search id is the idempotency key: a redelivered request
   * stores nothing and answers false. Foreign keys are checked at the end of
   * the statement, when the search row exists.
   */
  async store(s: NewSearch): Promise<boolean> {
    const results = resultColumns(s.results);
    const rows = await run(this.db, STORE_SEARCH(idDay(s.id)), [
      s.id,
      s.affiliateId,
      s.campaignId,
      s.apiKeyId,
      s.isTest,
      JSON.stringify(s.lead),
      JSON.stringify(s.tracking),
      s.consumerIp,
      s.ipSource,
      s.tcpaConsent,
      s.formCertUrl,
      s.universalLeadCert,
      s.createdAt,
      s.closesAt,
      s.partnerCalls.length === 0 ? s.createdAt : null,
      storedDecisions(s.decisions),
      results.ids,
      JSON.stringify(s.personKeys),
      results.templates,
      results.expires,
      results.partner,
      templatesJson(this.unknownTemplates(s.id, s.results)),
      JSON.stringify(s.partnerCalls.map((c) => ({ partner_id: c.partnerId, offer_ids: c.offerIds }))),
      s.contact === null ? null : JSON.stringify(s.contact),
    ]);
    await this.settleTemplates(s.id, s.results, rows[0]?.missing ?? 0);
    return rows[0]?.stored === 1;
  }

  async exists(searchId: string): Promise<boolean> {
    const rows = await run(this.db, SEARCH_EXISTS(idDay(searchId)), [searchId]);
    return rows.length > 0;
  }

  /** The campaign of a search; undefined when there is no such search. */
  async campaignOf(searchId: string): Promise<string | undefined> {
    const rows = await run(this.db, SEARCH_CAMPAIGN(idDay(searchId)), [searchId]);
    return rows[0]?.campaign_id;
  }

  /** The partner calls of a search still waiting for an answer (a redelivered request re-sends them). */
  async pendingPartnerCalls(searchId: string): Promise<Array<{ partnerId: string; offerIds: string[] }>> {
    const rows = await run(this.db, PENDING_PARTNER_CALLS(idDay(searchId)), [searchId]);
    return rows.map((r) => ({ partnerId: r.partner_id, offerIds: r.offer_ids }));
  }

  /**
   * Partners' answers read, in one statement (one snapshot): the search,
   * the answering partners' calls, the version and the results already shown
   * (with what they rank by), and for the answers' offers what the
   * search-time rules need now: the search's live sales, the caps' usage of
   * `slots`, and when the person (the search's stored keys) was last sold
   * each offer. Undefined when the search does not exist or asked none of
   * the partners.
   */
  async partnerAnswerContext(q: AnswerContextQuery): Promise<PartnerAnswerContext | undefined> {
    return answerContextOf((await run(this.db, MERGE_CONTEXT(idDay(q.searchId)), answerContextParams(q)))[0]);
  }

  /**
   * Saves partners' answers on the version of the search they were merged
   * from, in one statement (one round trip, one commit): their new results,
   * the new order, the decisions made, each pending call among them marked
   * with its outcome, a new state version, and done once no other partner
   * call is pending. Optimistic: nothing is written and the answer is
   * undefined when the search moved on since that read (another answer or a
   * sale bumped `state_version`) or none of the calls is pending any more;
   * the caller reads again. The version check and
   * the row lock of the UPDATE make concurrent answers of one search apply one
   * at a time, each on the list the previous one left.
   */
  async saveAnswer(
    searchId: string,
    version: number,
    answers: AnswerWrite['answers'],
    change: AnswerWrite['change'],
  ): Promise<SearchMeta | undefined> {
    const params = answerParams(searchId, version, answers, change, this.unknownTemplates(searchId, change.added));
    const rows = await run(this.db, MERGE_ANSWER(idDay(searchId)), params);
    if (rows[0]) await this.settleTemplates(searchId, change.added, rows[0].missing ?? 0);
    return savedMeta(rows[0], change);
  }

  /**
   * Partners' answers merged under the search's row lock, in one
   * transaction of two round trips: BEGIN, the lock and the read
   * (partnerAnswerContext, in a snapshot taken once the lock is held, so it
   * sees whatever answer or sale committed before), then the write
   * (saveAnswer) with COMMIT. `merge` decides on what was read (no other
   * answer or sale of the search can commit meanwhile: they wait for the
   * lock, where an optimistic write would fail and read everything again);
   * null writes nothing. Answers 'unknown' when the search does not exist or
   * asked none of the partners.
   */
  async mergeAnswer(
    q: AnswerContextQuery,
    merge: (search: PartnerAnswerContext) => Promise<AnswerWrite | null>,
  ): Promise<
    { kind: 'unknown' } | { kind: 'unchanged'; search: PartnerAnswerContext } | { kind: 'saved'; meta: SearchMeta } | { kind: 'moved' }
  > {
    if (!(this.db instanceof DataSource))
      throw new Error('mergeAnswer opens its own transaction: the repository must be built on a DataSource');
    return inTransaction(poolOf(this.db), async (tx) => {
      const search = answerContextOf(
        (
          await tx.begin(
            await tx.execute(LOCK_SEARCH(idDay(q.searchId)), [q.searchId]),
            await tx.execute(MERGE_CONTEXT(idDay(q.searchId)), answerContextParams(q)),
          )
        )[0],
      );
      if (!search) return { kind: 'unknown' } as const;
      const write = await merge(search);
      if (!write) return { kind: 'unchanged', search } as const;
      const params = answerParams(
        q.searchId,
        search.version,
        write.answers,
        write.change,
        this.unknownTemplates(q.searchId, write.change.added),
      );
      const row = (await tx.commit(await tx.execute(MERGE_ANSWER(idDay(q.searchId)), params)))[0];
      if (row) await this.settleTemplates(q.searchId, write.change.added, row.missing ?? 0);
      const meta = savedMeta(row, write.change);
      return meta ? ({ kind: 'saved', meta } as const) : ({ kind: 'moved' } as const);
    });
  }

  /**
   * A search as stored, in the shape of its hot state: the meta, and the
   * entries' JSON best first (what a poll answers when Redis has lost it, and
   * what a redelivered request answers from). Undefined when there is no such search.
   */
  async state(searchId: string): Promise<{ meta: SearchMeta; entries: Buffer[] } | undefined> {
    const rows = await run(this.db, SEARCH_ANSWER(idDay(searchId)), [searchId]);
    const r = rows[0];
    if (!r) return undefined;
    const entries = (r.entries ?? []).map((e) => Buffer.from(e));
    return { meta: { ...searchMetaOf(r), order: r.result_order }, entries };
  }

  /** The result a submit names on the search it names, with the search's affiliate (ownership and campaign checks); null when unknown. */
  async resultOwner(
    resultId: string,
    searchId: string,
  ): Promise<{ id: string; searchId: string; campaignId: string; affiliateId: string; offerId: string } | null> {
    const rows = await run(this.db, RESULT_REF(idDay(searchId)), [resultId, searchId]);
    const r = rows[0];
    return r && r.id !== null
      ? { id: r.id, searchId: r.search_id, campaignId: r.campaign_id, affiliateId: r.affiliate_id, offerId: r.offer_id }
      : null;
  }
}
