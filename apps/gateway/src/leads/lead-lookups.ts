import { DataSource } from 'typeorm';

/** The result a submit names, with the search it came from (for ownership and campaign checks). */
export async function findResultForSubmit(ds: DataSource, resultId: string) {
  const rows: Array<{ id: string; search_id: string; campaign_id: string; affiliate_id: string; offer_id: string }> = await ds.query(
    `SELECT r.id, r.search_id, r.campaign_id, s.affiliate_id, r.offer_id
       FROM results r JOIN searches s ON s.id = r.search_id WHERE r.id = $1`,
    [resultId],
  );
  return rows[0];
}

/** The offer a direct post names, and whether it is on the named campaign. */
export async function findOfferForDirectPost(ds: DataSource, offerId: string, campaignId: string) {
  const rows: Array<{ id: string; source: string; status: string; on_campaign: boolean }> = await ds.query(
    `SELECT o.id, o.source, o.status,
            EXISTS (SELECT 1 FROM campaign_offers co WHERE co.offer_id = o.id AND co.campaign_id = $2) AS on_campaign
       FROM offers o WHERE o.id = $1`,
    [offerId, campaignId],
  );
  return rows[0];
}
