import type { Queryable } from './queryable';

/**
 * The offers (among `offerIds`) with a cap that is already full in its current
 * period: a cap on the offer itself (all campaigns together) or on this
 * campaign's offer. Counting uses cap_scope()/cap_period_start(), the same
 * definition the sale reservation writes with.
 */
export async function offersWithFullCaps(db: Queryable, campaignId: string, offerIds: string[]): Promise<Set<string>> {
  if (offerIds.length === 0) return new Set();
  const rows: Array<{ offer_id: string }> = await db.query(
    `SELECT DISTINCT c.offer_id
       FROM caps c
       LEFT JOIN cap_usage u
              ON u.scope = cap_scope(c.offer_id, c.campaign_id)
             AND u.period = c.period
             AND u.period_start = cap_period_start(c.period, c.timezone, now())
      WHERE c.offer_id = ANY($2::uuid[])
        AND (c.campaign_id IS NULL OR c.campaign_id = $1)
        AND COALESCE(u.used, 0) >= c."limit"`,
    [campaignId, offerIds],
  );
  return new Set(rows.map((r) => r.offer_id));
}

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
  const rows: Array<{ offer_id: string }> = await db.query(
    `SELECT DISTINCT d.offer_id
       FROM unnest($1::text[], $2::char(64)[]) AS k(key_type, key_hash)
       JOIN unnest($3::uuid[], $4::int[]) AS o(offer_id, window_days) ON true
       JOIN dedupe_keys d
         ON d.key_type = k.key_type AND d.key_hash = k.key_hash AND d.offer_id = o.offer_id
      WHERE d.accepted_at > now() - make_interval(days => o.window_days)`,
    [keys.map((k) => k.type), keys.map((k) => k.hash), offers.map((o) => o.offerId), offers.map((o) => o.windowDays)],
  );
  return new Set(rows.map((r) => r.offer_id));
}

/** Where a search's lead stands in its sales: how many accepted, whether a true_exclusive sale ended them, schools that bought it exclusive. */
export interface SaleState {
  acceptedCount: number;
  trueExclusiveAccepted: boolean;
  exclusiveSchoolIds: Set<string>;
}

export async function loadSaleState(db: Queryable, searchId: string): Promise<SaleState> {
  const rows: Array<{ accepted_count: number; true_exclusive_accepted: boolean; exclusive_schools: string[] | null }> = await db.query(
    `SELECT s.accepted_count, s.true_exclusive_accepted,
            (SELECT array_agg(DISTINCT sa.school_id) FROM sales sa
              WHERE sa.search_id = s.id AND sa.status <> 'released' AND sa.offer_type = 'exclusive') AS exclusive_schools
       FROM searches s WHERE s.id = $1`,
    [searchId],
  );
  const r = rows[0];
  return {
    acceptedCount: r ? Number(r.accepted_count) : 0,
    trueExclusiveAccepted: r ? r.true_exclusive_accepted : false,
    exclusiveSchoolIds: new Set(r?.exclusive_schools ?? []),
  };
}
