import type { CampaignOffer } from '@lr/domain';
import { campaignOffersOf, offersByIdOf } from '../queries/catalog-offers';
import type { Queryable } from '../queries/queryable';
import { run, statement } from '../queries/sql';

export interface CampaignRecord {
  id: string;
  affiliateId: string;
  status: 'active' | 'paused';
}

export interface AffiliateRecord {
  id: string;
  name: string;
  status: 'active' | 'paused';
  /** Whether the duplicate pre-check endpoint is available to the affiliate. */
  dupeCheck: boolean;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A malformed id would make PostgreSQL raise 22P02; an unknown id is simply not found. */
export function isUuid(v: string): boolean {
  return UUID_RE.test(v);
}

/** Statements of this repository (prepared per connection: queries/sql.ts). */
const CAMPAIGN = statement('catalogCampaign', `SELECT id, affiliate_id, status FROM campaigns WHERE id = $1`);

const AFFILIATE = statement('catalogAffiliate', `SELECT id, name, status, dupe_check FROM affiliates WHERE id = $1`);

const SCHOOL = statement('catalogSchool', `SELECT id, name FROM schools WHERE id = $1`);

const OFFER_FOR_DIRECT_POST = statement(
  'offerForDirectPost',
  `SELECT o.id, o.source, o.status,
              EXISTS (SELECT 1 FROM campaign_offers co WHERE co.offer_id = o.id AND co.campaign_id = $2) AS on_campaign
         FROM offers o WHERE o.id = $1`,
);

const OFFER_SOLD_TO_AFFILIATE = statement(
  'offerSoldToAffiliate',
  `SELECT 1 FROM campaign_offers co JOIN campaigns c ON c.id = co.campaign_id
        WHERE co.offer_id = $1 AND c.affiliate_id = $2 LIMIT 1`,
);

/**
 * The catalog as the running services read it (written by `ops catalog
 * apply`): campaigns with their offers, affiliates. Rows are mapped into the
 * domain's CampaignOffer.
 */
export class CatalogRepository {
  constructor(private readonly db: Queryable) {}

  /** Every offer on a campaign, in the campaign's order (campaignOffersOf). */
  campaignOffers(campaignId: string): Promise<CampaignOffer[]> {
    return campaignOffersOf(this.db, campaignId);
  }

  /** Offers by id as the catalog holds them now, outside any campaign (offersByIdOf). */
  offersById(offerIds: readonly string[]): Promise<CampaignOffer[]> {
    return offersByIdOf(this.db, offerIds);
  }

  /** The campaign with this id whoever owns it (the caller compares `affiliateId`); null when unknown or not a UUID. */
  async campaign(campaignId: string): Promise<CampaignRecord | null> {
    if (!isUuid(campaignId)) return null;
    const rows = await run(this.db, CAMPAIGN, [campaignId]);
    const row = rows[0];
    return row ? { id: row.id, affiliateId: row.affiliate_id, status: row.status } : null;
  }

  async affiliate(affiliateId: string): Promise<AffiliateRecord | null> {
    if (!isUuid(affiliateId)) return null;
    const rows = await run(this.db, AFFILIATE, [affiliateId]);
    const row = rows[0];
    return row ? { id: row.id, name: row.name, status: row.status, dupeCheck: row.dupe_check } : null;
  }

  /** The school with this id; null when unknown or not a UUID. */
  async school(schoolId: string): Promise<{ id: string; name: string } | null> {
    if (!isUuid(schoolId)) return null;
    const rows = await run(this.db, SCHOOL, [schoolId]);
    return rows[0] ?? null;
  }

  /** The offer a direct post names and whether it is on the named campaign; null when unknown. */
  async offerForDirectPost(
    offerId: string,
    campaignId: string,
  ): Promise<{ id: string; source: 'own' | 'partner'; status: string; onCampaign: boolean } | null> {
    const rows = await run(this.db, OFFER_FOR_DIRECT_POST, [offerId, campaignId]);
    const o = rows[0];
    return o ? { id: o.id, source: o.source, status: o.status, onCampaign: o.on_campaign === true } : null;
  }

  /** Whether the offer is on any campaign of the affiliate (the pre-check's `offer_id` must be the caller's). */
  async isOfferOfAffiliate(offerId: string, affiliateId: string): Promise<boolean> {
    const rows = await run(this.db, OFFER_SOLD_TO_AFFILIATE, [offerId, affiliateId]);
    return rows.length > 0;
  }
}
