import type { KnownCatalogRefs, KnownOffer } from '@lr/domain';
import type { Queryable } from './queryable';
import { run, statement } from './sql';

/**
 * What the database already holds that a catalog file may refer to without
 * defining it: read by `catalog apply` (CatalogAdminRepository) and by
 * `catalog simulate` (CatalogSimulationRepository), which validates a file
 * the same way.
 */

const KNOWN_OFFERS = statement(
  'knownOffers',
  `SELECT o.id, o.source, o.partner_id, o.external_id,
              COALESCE(array_agg(p.value ORDER BY p.position) FILTER (WHERE p.value IS NOT NULL), '{}') AS programs
         FROM offers o LEFT JOIN programs p ON p.offer_id = o.id
        GROUP BY o.id`,
);

const AFFILIATE_IDS = statement('affiliateIds', `SELECT id FROM affiliates`);
const SCHOOL_IDS = statement('schoolIds', `SELECT id FROM schools`);
const PARTNER_IDS = statement('partnerIds', `SELECT id FROM partners`);

/** Ids, and each offer's source, partner and programs (in order). */
export async function knownCatalogRefs(db: Queryable): Promise<KnownCatalogRefs> {
  const offers = new Map<string, KnownOffer>();
  for (const r of await run(db, KNOWN_OFFERS)) {
    offers.set(r.id, { source: r.source, partnerId: r.partner_id, externalId: r.external_id, programValues: r.programs ?? [] });
  }
  const ids = async (s: typeof AFFILIATE_IDS | typeof SCHOOL_IDS | typeof PARTNER_IDS) => new Set((await run(db, s)).map((r) => r.id));
  return { affiliateIds: await ids(AFFILIATE_IDS), schoolIds: await ids(SCHOOL_IDS), partnerIds: await ids(PARTNER_IDS), offers };
}
