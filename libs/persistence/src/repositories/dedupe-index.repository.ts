import type { DedupeKey } from '@lr/domain';
import { KEYS_FROM_PARAMS, keyParams, LAST_SALES_TO_PERSON } from '../queries/dedupe-keys';
import type { Queryable } from '../queries/queryable';
import { filled, run, statement } from '../queries/sql';

/**
 * The dedupe index (`dedupe_keys`): a row per live sale and person key
 * (normalized hashes only), written with a sale's reservation and dropped when
 * it is released; test leads never get rows. It answers one question: when
 * was each of these offers last sold to this person (any of their keys)? The
 * duplicate rule itself (libs/domain duplicates: within the offer's window)
 * decides on the answer, for the search, the submit and the pre-check alike.
 */

/** lastSales' statement for one offer's rule (`offer_id`: $3 the offers). */
const LAST_SALES_OF_OFFERS = statement(
  'lastSalesOfOffers',
  `SELECT x.offer_id, x.last_sold_at, o.duplicate_window_days AS window_days
     FROM (${LAST_SALES_TO_PERSON(KEYS_FROM_PARAMS('$1', '$2'), 'd.offer_id = ANY($3::uuid[])')}) x
     JOIN offers o ON o.id = x.offer_id`,
);

/** lastSales' statement for any offer on the affiliate's ($3) campaigns. */
const LAST_SALES_ON_CAMPAIGNS = statement(
  'lastSalesOnCampaigns',
  `SELECT x.offer_id, x.last_sold_at, o.duplicate_window_days AS window_days
     FROM (${LAST_SALES_TO_PERSON(
       KEYS_FROM_PARAMS('$1', '$2'),
       `EXISTS (SELECT 1 FROM campaign_offers co JOIN campaigns c ON c.id = co.campaign_id
                 WHERE co.offer_id = d.offer_id AND c.affiliate_id = $3::uuid)`,
     )}) x
     JOIN offers o ON o.id = x.offer_id`,
);

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
      sql: (byOffers ? LAST_SALES_OF_OFFERS : LAST_SALES_ON_CAMPAIGNS).text,
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
    const { params } = DedupeIndex.lastSalesStatement(keys, scope);
    const rows = await run(this.db, 'offerIds' in scope ? LAST_SALES_OF_OFFERS : LAST_SALES_ON_CAMPAIGNS, params);
    return rows.map((r) => ({ offerId: r.offer_id, soldAt: new Date(filled(r.last_sold_at, 'last_sold_at')), windowDays: r.window_days }));
  }
}
