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

const SALE_STATE_SQL = (searchId: string) =>
  `SELECT s.accepted_count, s.true_exclusive_accepted,
            (SELECT array_agg(DISTINCT sa.school_id) FROM sales sa
              WHERE sa.search_id = s.id AND sa.status <> 'released' AND sa.offer_type = 'exclusive') AS exclusive_schools
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
