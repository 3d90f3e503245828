import type { Queryable } from './queryable';

export interface ResultOwnership {
  id: string;
  searchId: string;
  campaignId: string;
  affiliateId: string;
  offerId: string;
}

/** The result a submit names, with its search's affiliate (ownership and campaign checks); null when unknown. */
export async function findResultForSubmit(db: Queryable, resultId: string): Promise<ResultOwnership | null> {
  const rows: Array<{ id: string; search_id: string; campaign_id: string; affiliate_id: string; offer_id: string }> = await db.query(
    `SELECT r.id, r.search_id, r.campaign_id, s.affiliate_id, r.offer_id
       FROM results r JOIN searches s ON s.id = r.search_id WHERE r.id = $1`,
    [resultId],
  );
  const r = rows[0];
  return r ? { id: r.id, searchId: r.search_id, campaignId: r.campaign_id, affiliateId: r.affiliate_id, offerId: r.offer_id } : null;
}

/** The offer a direct post names and whether it is on the named campaign; null when unknown. */
export async function findOfferForDirectPost(
  db: Queryable,
  offerId: string,
  campaignId: string,
): Promise<{ id: string; source: 'own' | 'partner'; status: string; onCampaign: boolean } | null> {
  const rows: Array<{ id: string; source: 'own' | 'partner'; status: string; on_campaign: boolean }> = await db.query(
    `SELECT o.id, o.source, o.status,
            EXISTS (SELECT 1 FROM campaign_offers co WHERE co.offer_id = o.id AND co.campaign_id = $2) AS on_campaign
       FROM offers o WHERE o.id = $1`,
    [offerId, campaignId],
  );
  const o = rows[0];
  return o ? { id: o.id, source: o.source, status: o.status, onCampaign: o.on_campaign } : null;
}

/** Whether the offer is on any campaign of the affiliate (the pre-check's `offer_id` must be the caller's). */
export async function isOfferOfAffiliate(db: Queryable, offerId: string, affiliateId: string): Promise<boolean> {
  const rows: unknown[] = await db.query(
    `SELECT 1 FROM campaign_offers co JOIN campaigns c ON c.id = co.campaign_id
      WHERE co.offer_id = $1 AND c.affiliate_id = $2 LIMIT 1`,
    [offerId, affiliateId],
  );
  return rows.length > 0;
}
