import { CampaignOffer, CapRule, centsOrNull, EligibilityRules, formFieldsOf, payoutTerms } from '@lr/domain';
import type { Queryable } from './queryable';
import { run, statement, type WithDocuments } from './sql';

/**
 * The catalog's offers as the domain's CampaignOffer: read by the services
 * (CatalogRepository) and by the operator's snapshots (lead explain, catalog
 * simulate), from one statement each.
 */

/** The JSON documents of an offer's row (OFFER_SELECT builds them; PostgreSQL describes them as json). */
interface OfferDocuments {
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
  program_payouts: Record<string, number> | null;
  partner_settings: Record<string, unknown> | null;
}

type OfferColumns = WithDocuments<'campaignOffers', OfferDocuments>;

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

const CAMPAIGN_OFFERS = statement(
  'campaignOffers',
  `${OFFER_SELECT}
         FROM campaign_offers co
         JOIN offers o ON o.id = co.offer_id
         JOIN schools s ON s.id = o.school_id
         LEFT JOIN partners p ON p.id = o.partner_id
        WHERE co.campaign_id = $1
        ORDER BY co.position`,
);

/** Offers by id without a campaign: their own caps only, no payout terms. */
const OFFERS_BY_ID = statement(
  'offersById',
  `${OFFER_SELECT}
         FROM offers o
         JOIN schools s ON s.id = o.school_id
         LEFT JOIN partners p ON p.id = o.partner_id
         CROSS JOIN (SELECT NULL::uuid AS campaign_id, NULL::numeric AS payout, NULL::jsonb AS program_payouts) co
        WHERE o.id = ANY($1::uuid[])`,
);

/**
 * Every offer on a campaign (paused ones too: a search records why they were
 * left out), in the campaign's order, with school, programs and questions in
 * catalog order, the campaign's payout terms, the offer's own caps and this
 * campaign's, price, delivery and partner. One round trip.
 */
export async function campaignOffersOf(db: Queryable, campaignId: string): Promise<CampaignOffer[]> {
  const rows = (await run(db, CAMPAIGN_OFFERS, [campaignId])) as OfferColumns[];
  return rows.map((r) => toCampaignOffer(campaignId, r));
}

/** Offers by id as the catalog holds them now, outside any campaign (`campaignId` empty, no payout terms, the offer's own caps). */
export async function offersByIdOf(db: Queryable, offerIds: readonly string[]): Promise<CampaignOffer[]> {
  const rows = (await run(db, OFFERS_BY_ID, [offerIds])) as OfferColumns[];
  return rows.map((r) => toCampaignOffer('', r));
}

function toCampaignOffer(campaignId: string, r: OfferColumns): CampaignOffer {
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
