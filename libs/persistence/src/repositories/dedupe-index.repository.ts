import type { DedupeKey, LastSales } from '@lr/domain';
import type { Queryable } from '../queries/queryable';

/**
 * The dedupe index (`dedupe_keys`): a row per live sale and person key
 * (normalized hashes only), written with a sale's reservation and dropped when
 * it is released; test leads never get rows. It answers one question: when
 * was each of these offers last sold to this person (any of their keys)? The
 * duplicate rule itself (libs/domain duplicates: within the offer's window)
 * decides on the answer, for the search, the submit and the pre-check alike.
 */

/**
 * The one statement shape of that question, as a subquery yielding
 * (offer_id, last_sold_at): `keys` is a relation of (key_type text, key_hash
 * char(64)) — two parallel array parameters, or a search's stored keys — and
 * `offerFilter` a condition on `d.offer_id`. The hashes are compared as
 * char(64), the column's type: as text, PostgreSQL would cast the column and
 * no index could serve the lookup. Served by ix_dedupe_keys_offer
 * (key_type, key_hash, offer_id): a person has few rows.
 */
export const LAST_SALES_TO_PERSON = (keys: string, offerFilter: string) =>
  `SELECT d.offer_id, max(d.accepted_at) AS last_sold_at
     FROM (${keys}) AS k(key_type, key_hash)
     JOIN dedupe_keys d ON d.key_type = k.key_type AND d.key_hash = k.key_hash::char(64)
    WHERE ${offerFilter}
    GROUP BY d.offer_id`;

/** The person's keys as two parallel array parameters. */
export const KEYS_FROM_PARAMS = (types: string, hashes: string) => `SELECT * FROM unnest(${types}::text[], ${hashes}::char(64)[])`;

/** The parameters of KEYS_FROM_PARAMS. */
export const keyParams = (keys: readonly DedupeKey[]): [string[], string[]] => [keys.map((k) => k.type), keys.map((k) => k.hash)];

/** Rows of LAST_SALES_TO_PERSON as a map. */
export function lastSalesOf(rows: ReadonlyArray<{ offer_id: string; last_sold_at: string | Date }> | null): LastSales {
  return new Map((rows ?? []).map((r) => [r.offer_id, new Date(r.last_sold_at)]));
}

/** Who the pre-check asks about: one offer's rule (`offer_id`), or any offer on the affiliate's campaigns. */
export type PreCheckScope = { offerIds: string[] } | { affiliateId: string };

export class DedupeIndex {
  constructor(private readonly db: Queryable) {}

  /**
   * The statement of lastSales (also what the pre-check bench explains): when
   * the person was last sold each offer of the scope, with the offer's window.
   */
  static lastSalesStatement(keys: readonly DedupeKey[], scope: PreCheckScope): { sql: string; params: unknown[] } {
    const byOffers = 'offerIds' in scope;
    return {
      sql: `SELECT x.offer_id, x.last_sold_at, o.duplicate_window_days AS window_days
              FROM (${LAST_SALES_TO_PERSON(
                KEYS_FROM_PARAMS('$1', '$2'),
                byOffers
                  ? 'd.offer_id = ANY($3::uuid[])'
                  : `EXISTS (SELECT 1 FROM campaign_offers co JOIN campaigns c ON c.id = co.campaign_id
                              WHERE co.offer_id = d.offer_id AND c.affiliate_id = $3::uuid)`,
              )}) x
              JOIN offers o ON o.id = x.offer_id`,
      params: [...keyParams(keys), byOffers ? scope.offerIds : scope.affiliateId],
    };
  }

  /**
   * When the person was last sold to each of `offers` (the duplicate
   * pre-check with `offer_id`), or, with `{ affiliateId }`, to each offer on
   * any of the affiliate's campaigns (the account-wide pre-check: whoever sold
   * it, since the submit-time rule is per offer, not per seller); each with
   * the offer's duplicate window.
   */
  async lastSales(keys: readonly DedupeKey[], scope: PreCheckScope): Promise<Array<{ offerId: string; soldAt: Date; windowDays: number }>> {
    if (keys.length === 0) return [];
    const { sql, params } = DedupeIndex.lastSalesStatement(keys, scope);
    const rows: Array<{ offer_id: string; last_sold_at: Date; window_days: number }> = await this.db.query(sql, params);
    return rows.map((r) => ({ offerId: r.offer_id, soldAt: new Date(r.last_sold_at), windowDays: r.window_days }));
  }
}
