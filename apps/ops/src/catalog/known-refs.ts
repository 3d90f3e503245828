import { EntityManager } from 'typeorm';
import type { KnownCatalogRefs, KnownOffer, OfferSource } from '@lr/domain';

/** What the database already holds that a catalog file may refer to without defining it. */
export async function loadKnownRefs(em: EntityManager): Promise<KnownCatalogRefs> {
  const ids = async (table: string) => new Set((await em.query(`SELECT id FROM ${table}`) as Array<{ id: string }>).map((r) => r.id));
  const offers = new Map<string, KnownOffer>();
  const rows: Array<{ id: string; source: OfferSource; partner_id: string | null; external_id: string | null; programs: string[] }> =
    await em.query(
      `SELECT o.id, o.source, o.partner_id, o.external_id,
              COALESCE(array_agg(p.value ORDER BY p.position) FILTER (WHERE p.value IS NOT NULL), '{}') AS programs
         FROM offers o LEFT JOIN programs p ON p.offer_id = o.id
        GROUP BY o.id`,
    );
  for (const r of rows) {
    offers.set(r.id, { source: r.source, partnerId: r.partner_id, externalId: r.external_id, programValues: r.programs });
  }
  return {
    affiliateIds: await ids('affiliates'),
    schoolIds: await ids('schools'),
    partnerIds: await ids('partners'),
    offers,
  };
}
