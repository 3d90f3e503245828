import { CampaignOffer, CapRule, centsOrNull, EligibilityRules, formFieldsOf, payoutTerms } from '@lr/domain';
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

interface OfferRow {
  offer_id: string;
  name: string;
  school_id: string;
  school_name: string;
  logo_url: string | null;
  source: 'own' | 'partner';
  offer_type: CampaignOffer['offerType'];
  status: 'active' | 'paused';
  priority: number;
  price: string | null;
  tcpa_text: string | null;
  result_ttl_seconds: number;
  duplicate_window_days: number;
  eligibility: EligibilityRules | null;
  delivery: Record<string, unknown> | null;
  programs: Array<{ value: string; label: string; eligibility: EligibilityRules | null }>;
  questions: Array<{
    name: string;
    label: string | null;
    type: string;
    required: boolean;
    required_when: { program_ids: string[] } | null;
    options: Array<{ value: string; label: string }> | null;
  }>;
  caps: Array<{ campaign_id: string | null; period: CapRule['period']; limit: number; timezone: string }>;
  payout: string | null;
  program_payouts: Record<string, number> | null;
  external_id: string | null;
  partner_id: string | null;
  partner_name: string | null;
  adapter: string | null;
  base_url: string | null;
  timeout_ms: number | null;
  partner_settings: Record<string, unknown> | null;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A malformed id would make PostgreSQL raise 22P02; an unknown id is simply not found. */
export function isUuid(v: string): boolean {
  return UUID_RE.test(v);
}

/** Statements of this repository (prepared per connection: queries/sql.ts). */
/** An offer's columns with its school, programs, questions, caps (its own and campaign `co`'s) and partner, and co's payout terms. */
const OFFER_SELECT = `SELECT o.id AS offer_id, o.name, o.school_id, s.name AS school_name, s.logo_url, o.source, o.offer_type, o.status,
              o.priority, o.price, o.tcpa_text, o.result_ttl_seconds, o.duplicate_window_days, o.eligibility, o.delivery,
              COALESCE((SELECT json_agg(json_build_object('value', pr.value, 'label', pr.label, 'eligibility', pr.eligibility) ORDER BY pr.position)
                          FROM programs pr WHERE pr.offer_id = o.id), '[]') AS programs,
              COALESCE((SELECT json_agg(json_build_object('name', q.name, 'label', q.label, 'type', q.type, 'required', q.required,
                                                          'required_when', q.required_when, 'options', q.options) ORDER BY q.position)
                          FROM questions q WHERE q.offer_id = o.id), '[]') AS questions,
              COALESCE((SELECT json_agg(json_build_object('campaign_id', c.campaign_id, 'period', c.period, 'limit', c."limit", 'timezone', c.timezone))
                          FROM caps c WHERE c.offer_id = o.id AND (c.campaign_id IS NULL OR c.campaign_id = co.campaign_id)), '[]') AS caps,
              co.payout, co.program_payouts, o.external_id,
              p.id AS partner_id, p.name AS partner_name, p.adapter, p.base_url, p.timeout_ms, p.settings AS partner_settings`;

const CAMPAIGN_OFFERS = statement(`${OFFER_SELECT}
         FROM campaign_offers co
         JOIN offers o ON o.id = co.offer_id
         JOIN schools s ON s.id = o.school_id
         LEFT JOIN partners p ON p.id = o.partner_id
        WHERE co.campaign_id = $1
        ORDER BY co.position`);

/** Offers by id without a campaign: their own caps only, no payout terms. */
const OFFERS_BY_ID = statement(`${OFFER_SELECT}
         FROM offers o
         JOIN schools s ON s.id = o.school_id
         LEFT JOIN partners p ON p.id = o.partner_id
         LEFT JOIN (SELECT NULL::uuid AS campaign_id, NULL::numeric AS payout, NULL::jsonb AS program_payouts) co ON false
        WHERE o.id = ANY($1::uuid[])`);

const CAMPAIGN = statement(`SELECT id, affiliate_id, status FROM campaigns WHERE id = $1`);

const AFFILIATE = statement(`SELECT id, name, status, dupe_check FROM affiliates WHERE id = $1`);

const SCHOOL = statement(`SELECT id, name FROM schools WHERE id = $1`);

const OFFER_FOR_DIRECT_POST = statement(`SELECT o.id, o.source, o.status,
              EXISTS (SELECT 1 FROM campaign_offers co WHERE co.offer_id = o.id AND co.campaign_id = $2) AS on_campaign
         FROM offers o WHERE o.id = $1`);

const OFFER_SOLD_TO_AFFILIATE = statement(`SELECT 1 FROM campaign_offers co JOIN campaigns c ON c.id = co.campaign_id
        WHERE co.offer_id = $1 AND c.affiliate_id = $2 LIMIT 1`);

/**
 * The catalog as the running services read it (written by `ops catalog
 * apply`): campaigns with their offers, affiliates. Rows are mapped into the
 * domain's CampaignOffer.
 */
export class CatalogRepository {
  constructor(private readonly db: Queryable) {}

  /**
   * Every offer on a campaign (paused ones too: a search records why they were
   * left out), in the campaign's order, with school, programs and questions in
   * catalog order, the campaign's payout terms, the offer's own caps and this
   * campaign's, price, delivery and partner. One round trip.
   */
  async campaignOffers(campaignId: string): Promise<CampaignOffer[]> {
    const rows: OfferRow[] = await run(this.db, CAMPAIGN_OFFERS, [campaignId]);
    return rows.map((r) => toCampaignOffer(campaignId, r));
  }

  /** Offers by id as the catalog holds them now, outside any campaign (`campaignId` empty, no payout terms, the offer's own caps). */
  async offersById(offerIds: readonly string[]): Promise<CampaignOffer[]> {
    const rows: OfferRow[] = await run(this.db, OFFERS_BY_ID, [offerIds]);
    return rows.map((r) => toCampaignOffer('', r));
  }

  /** The campaign with this id whoever owns it (the caller compares `affiliateId`); null when unknown or not a UUID. */
  async campaign(campaignId: string): Promise<CampaignRecord | null> {
    if (!isUuid(campaignId)) return null;
    const rows: Array<{ id: string; affiliate_id: string; status: 'active' | 'paused' }> = await run(this.db, CAMPAIGN, [campaignId]);
    const row = rows[0];
    return row ? { id: row.id, affiliateId: row.affiliate_id, status: row.status } : null;
  }

  async affiliate(affiliateId: string): Promise<AffiliateRecord | null> {
    if (!isUuid(affiliateId)) return null;
    const rows: Array<{ id: string; name: string; status: 'active' | 'paused'; dupe_check: boolean }> = await run(this.db, AFFILIATE, [
      affiliateId,
    ]);
    const row = rows[0];
    return row ? { id: row.id, name: row.name, status: row.status, dupeCheck: row.dupe_check } : null;
  }

  /** The school with this id; null when unknown or not a UUID. */
  async school(schoolId: string): Promise<{ id: string; name: string } | null> {
    if (!isUuid(schoolId)) return null;
    const rows: Array<{ id: string; name: string }> = await run(this.db, SCHOOL, [schoolId]);
    return rows[0] ?? null;
  }

  /** The offer a direct post names and whether it is on the named campaign; null when unknown. */
  async offerForDirectPost(
    offerId: string,
    campaignId: string,
  ): Promise<{ id: string; source: 'own' | 'partner'; status: string; onCampaign: boolean } | null> {
    const rows: Array<{ id: string; source: 'own' | 'partner'; status: string; on_campaign: boolean }> = await run(
      this.db,
      OFFER_FOR_DIRECT_POST,
      [offerId, campaignId],
    );
    const o = rows[0];
    return o ? { id: o.id, source: o.source, status: o.status, onCampaign: o.on_campaign } : null;
  }

  /** Whether the offer is on any campaign of the affiliate (the pre-check's `offer_id` must be the caller's). */
  async isOfferOfAffiliate(offerId: string, affiliateId: string): Promise<boolean> {
    const rows: unknown[] = await run(this.db, OFFER_SOLD_TO_AFFILIATE, [offerId, affiliateId]);
    return rows.length > 0;
  }
}

function toCampaignOffer(campaignId: string, r: OfferRow): CampaignOffer {
  return {
    offerId: r.offer_id,
    campaignId,
    name: r.name,
    schoolId: r.school_id,
    schoolName: r.school_name,
    schoolLogoUrl: r.logo_url,
    source: r.source,
    offerType: r.offer_type,
    status: r.status,
    priority: r.priority,
    tcpaText: r.tcpa_text,
    resultTtlSeconds: r.result_ttl_seconds,
    duplicateWindowDays: r.duplicate_window_days,
    eligibility: r.eligibility ?? {},
    programs: r.programs.map((p) => ({ value: p.value, label: p.label, eligibility: p.eligibility ?? {} })),
    formFields: formFieldsOf(r.questions),
    payouts: payoutTerms(r.payout, r.program_payouts),
    price: centsOrNull(r.price),
    caps: r.caps.map((c) => ({ offerId: r.offer_id, campaignId: c.campaign_id, period: c.period, limit: c.limit, timezone: c.timezone })),
    delivery: r.delivery as CampaignOffer['delivery'],
    externalId: r.external_id,
    partner:
      r.partner_id === null
        ? null
        : {
            id: r.partner_id,
            name: r.partner_name!,
            adapter: r.adapter!,
            baseUrl: r.base_url!,
            timeoutMs: r.timeout_ms!,
            ...(r.partner_settings ? { settings: r.partner_settings } : {}),
          },
  };
}
