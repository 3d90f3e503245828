import type { Queryable } from './queryable';

/**
 * The offers (among `offerIds`) with a cap that is already full in its current
 * period: a cap on the offer itself (all campaigns together) or on this
 * campaign's offer. Counting uses cap_scope()/cap_period_start(), the same
 * definition the sale reservation writes with.
 */
export async function offersWithFullCaps(db: Queryable, campaignId: string, offerIds: string[]): Promise<Set<string>> {
  if (offerIds.length === 0) return new Set();
  const rows: Array<{ offer_id: string }> = await db.query(FULL_CAPS_SQL('$1', '$2'), [campaignId, offerIds]);
  return new Set(rows.map((r) => r.offer_id));
}

/** The offer ids (column offer_id) among the uuid[] `offerIds` whose cap is full, for campaign `campaignId` (SQL parameters). */
const FULL_CAPS_SQL = (campaignId: string, offerIds: string) =>
  `SELECT DISTINCT c.offer_id
       FROM caps c
       LEFT JOIN cap_usage u
              ON u.scope = cap_scope(c.offer_id, c.campaign_id)
             AND u.period = c.period
             AND u.period_start = cap_period_start(c.period, c.timezone, now())
      WHERE c.offer_id = ANY(${offerIds}::uuid[])
        AND (c.campaign_id IS NULL OR c.campaign_id = ${campaignId})
        AND COALESCE(u.used, 0) >= c."limit"`;

/**
 * The offers (each with its duplicate window in days) that already bought this
 * person within the window: any of the person's dedupe keys (normalized hashes)
 * on an accepted live lead of that offer. The hashes are compared as
 * char(64), the column's type: as text, PostgreSQL would cast the column and
 * no index could serve the lookup (a full scan of dedupe_keys).
 */
export async function offersAlreadySoldToPerson(
  db: Queryable,
  keys: Array<{ type: string; hash: string }>,
  offers: Array<{ offerId: string; windowDays: number }>,
): Promise<Set<string>> {
  if (keys.length === 0 || offers.length === 0) return new Set();
  const rows: Array<{ offer_id: string }> = await db.query(SOLD_TO_PERSON_SQL('$1', '$2', '$3', '$4'), soldToPersonParams(keys, offers));
  return new Set(rows.map((r) => r.offer_id));
}

/** The offer ids (column offer_id) already sold to the person within their windows; parameters as soldToPersonParams. */
const SOLD_TO_PERSON_SQL = (keyTypes: string, keyHashes: string, offerIds: string, windowDays: string) =>
  `SELECT DISTINCT d.offer_id
       FROM unnest(${keyTypes}::text[], ${keyHashes}::char(64)[]) AS k(key_type, key_hash)
       JOIN unnest(${offerIds}::uuid[], ${windowDays}::int[]) AS o(offer_id, window_days) ON true
       JOIN dedupe_keys d
         ON d.key_type = k.key_type AND d.key_hash = k.key_hash AND d.offer_id = o.offer_id
      WHERE d.accepted_at > now() - make_interval(days => o.window_days)`;

const soldToPersonParams = (keys: Array<{ type: string; hash: string }>, offers: Array<{ offerId: string; windowDays: number }>) => [
  keys.map((k) => k.type),
  keys.map((k) => k.hash),
  offers.map((o) => o.offerId),
  offers.map((o) => o.windowDays),
];

/** Where a search's lead stands in its sales: how many accepted, whether a true_exclusive sale ended them, schools that bought it exclusive. */
export interface SaleState {
  acceptedCount: number;
  trueExclusiveAccepted: boolean;
  exclusiveSchoolIds: Set<string>;
}

interface SaleStateRow {
  accepted_count: number;
  true_exclusive_accepted: boolean;
  exclusive_schools: string[] | null;
}

/** The schools that bought the search `s` (an alias in scope) exclusive and still hold it: a uuid[] or NULL. */
const EXCLUSIVE_SCHOOLS_SQL = `(SELECT array_agg(DISTINCT sa.school_id) FROM sales sa
              WHERE sa.search_id = s.id AND sa.status <> 'released' AND sa.offer_type = 'exclusive')`;

const SALE_STATE_SQL = (searchId: string) =>
  `SELECT s.accepted_count, s.true_exclusive_accepted, ${EXCLUSIVE_SCHOOLS_SQL} AS exclusive_schools
       FROM searches s WHERE s.id = ${searchId}`;

/** A search's sale state from its row; nothing sold when there is no row (a search not stored yet). */
function saleStateOf(r: SaleStateRow | null | undefined): SaleState {
  return {
    acceptedCount: r ? Number(r.accepted_count) : 0,
    trueExclusiveAccepted: r ? r.true_exclusive_accepted : false,
    exclusiveSchoolIds: new Set(r?.exclusive_schools ?? []),
  };
}

/** What the search-time checks read from PostgreSQL about a lead and a campaign's candidate offers. */
export interface SearchCheckFacts {
  fullCaps: Set<string>;
  alreadySold: Set<string>;
  sale: SaleState;
}

/**
 * offersWithFullCaps, offersAlreadySoldToPerson and the search's sale state
 * in one statement (one round trip instead of three: on a search's hot path each
 * round trip costs more in system calls and wake-ups than the lookups
 * themselves). `keys` empty skips the person check (test searches);
 * `searchId` undefined skips the sale state (a search not stored yet).
 */
export async function searchCheckFacts(
  db: Queryable,
  q: { campaignId: string; offers: Array<{ offerId: string; windowDays: number }>; keys: Array<{ type: string; hash: string }>; searchId?: string },
): Promise<SearchCheckFacts> {
  if (q.offers.length === 0 && q.searchId === undefined) return { fullCaps: new Set(), alreadySold: new Set(), sale: saleStateOf(undefined) };
  const rows: Array<{ full_caps: string[]; already_sold: string[]; sale: SaleStateRow | null }> = await db.query(
    `SELECT ARRAY(${FULL_CAPS_SQL('$1', '$4')}) AS full_caps,
            ARRAY(${SOLD_TO_PERSON_SQL('$2', '$3', '$4', '$5')}) AS already_sold,
            (SELECT row_to_json(x) FROM (${SALE_STATE_SQL('$6')}) x) AS sale`,
    [q.campaignId, ...soldToPersonParams(q.offers.length > 0 ? q.keys : [], q.offers), q.searchId ?? null],
  );
  const r = rows[0];
  return { fullCaps: new Set(r.full_caps), alreadySold: new Set(r.already_sold), sale: saleStateOf(r.sale) };
}

/** A result already shown on a search, with what it ranks by. */
export interface ShownResultRow {
  id: string;
  offer_id: string;
  school_id: string;
  priority: number;
  source: 'own' | 'partner';
  name: string;
  payout: number | null;
}

/** What a partner's answer to a search needs, read in one statement (partnerAnswerContext). */
export interface PartnerAnswerContext {
  campaignId: string;
  isTest: boolean;
  closesAt: Date;
  lead: Record<string, unknown>;
  /** searches.state_version: the answer is written only on this version (saved optimistically). */
  version: number;
  resultOrder: string[];
  /** The partner call's offers (the answer counts only for these). */
  callOfferIds: string[];
  /** Only a pending call takes an answer; for any other status nothing below is read. */
  pending: boolean;
  shown: ShownResultRow[];
  /**
   * The search-time facts for the answer's offers, as searchCheckFacts reads
   * them. `alreadySold` is null when a live search has no stored person keys
   * (stored before `person_keys` existed): the caller looks the person up
   * itself. A test search never has a person check.
   */
  facts: { fullCaps: Set<string>; alreadySold: Set<string> | null; sale: SaleState };
}

/**
 * A partner's answer reads, in one statement (one snapshot): the search, the
 * partner's call, the version and the results already shown, and for the
 * answer's offers (`offerIds`) what the search-time checks need now: full caps,
 * the person already sold to the offer within its window (by the search's
 * stored person keys and the offer's window), the search's sale state.
 * Undefined when the search or the call does not exist.
 */
export async function partnerAnswerContext(
  db: Queryable,
  q: { searchId: string; partnerId: string; offerIds: string[] },
): Promise<PartnerAnswerContext | undefined> {
  type Row = {
    campaign_id: string;
    is_test: boolean;
    closes_at: Date;
    lead: Record<string, unknown>;
    state_version: number;
    result_order: string[];
    offer_ids: string[];
    pending: boolean;
    accepted_count: number;
    true_exclusive_accepted: boolean;
    exclusive_schools: string[] | null;
    full_caps: string[] | null;
    already_sold: string[] | null;
    shown: ShownResultRow[] | null;
  };
  const rows: Row[] = await db.query(
    `SELECT s.campaign_id, s.is_test, s.closes_at, s.lead, s.state_version, s.result_order, s.accepted_count, s.true_exclusive_accepted,
            c.offer_ids, c.status = 'pending' AS pending,
            CASE WHEN c.status = 'pending' THEN ${EXCLUSIVE_SCHOOLS_SQL} END AS exclusive_schools,
            CASE WHEN c.status = 'pending' THEN ARRAY(${FULL_CAPS_SQL('s.campaign_id', '$3')}) END AS full_caps,
            CASE WHEN c.status = 'pending' AND s.person_keys IS NOT NULL THEN ARRAY(
              SELECT DISTINCT d.offer_id
                FROM jsonb_to_recordset(s.person_keys) AS k(type text, hash text)
                JOIN offers o ON o.id = ANY($3::uuid[])
                JOIN dedupe_keys d ON d.key_type = k.type AND d.key_hash = k.hash::char(64) AND d.offer_id = o.id
               WHERE d.accepted_at > now() - make_interval(days => o.duplicate_window_days)) END AS already_sold,
            CASE WHEN c.status = 'pending' THEN (
              SELECT json_agg(json_build_object(
                       'id', r.id, 'offer_id', r.offer_id, 'school_id', o.school_id, 'priority', o.priority, 'source', o.source,
                       'name', o.name, 'payout', (r.entry->>'payout')::numeric::float8))
                FROM results r JOIN offers o ON o.id = r.offer_id
               WHERE r.search_id = s.id) END AS shown
       FROM searches s JOIN search_partner_calls c ON c.search_id = s.id AND c.partner_id = $2
      WHERE s.id = $1`,
    [q.searchId, q.partnerId, q.offerIds],
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    campaignId: r.campaign_id,
    isTest: r.is_test,
    closesAt: new Date(r.closes_at),
    lead: r.lead,
    version: Number(r.state_version),
    resultOrder: r.result_order,
    callOfferIds: r.offer_ids,
    pending: r.pending,
    shown: r.shown ?? [],
    facts: {
      fullCaps: new Set(r.full_caps ?? []),
      // No stored keys on a pending live search (stored before person_keys): the caller looks the person up. A test search has no person check.
      alreadySold: r.already_sold === null && r.pending && !r.is_test ? null : new Set(r.already_sold ?? []),
      sale: saleStateOf(r),
    },
  };
}
