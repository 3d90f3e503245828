import { randomUUID } from 'node:crypto';
import { type CampaignOffer, payoutTerms } from '@lr/domain';

/*
 * The one place tests build offers, campaigns and catalogs, in both shapes:
 * - the catalog file format (CATALOG.md), which end-to-end, integration and
 *   medium tests apply: buildTestCatalog, catalogOffer, ownOffer,
 *   partnerOffer, campaign;
 * - the domain's CampaignOffer (an offer as a campaign sells it), which unit
 *   tests hand to the rules: campaignOffer.
 * A test states the fields its assertions depend on; the rest are these defaults.
 */

/**
 * A small catalog with fresh ids for one test file, so test files never share
 * catalog rows: affiliate A with an active and a paused campaign, affiliate B
 * with its own campaign, one school, one own offer on every campaign and a
 * partner offer on A's live campaign.
 */
export function buildTestCatalog(sandboxUrl = 'http://127.0.0.1:4100') {
  const ids = {
    affiliateA: randomUUID(),
    affiliateB: randomUUID(),
    school: randomUUID(),
    offer: randomUUID(),
    partner: randomUUID(),
    partnerOffer: randomUUID(),
    campaignA: randomUUID(),
    campaignAPaused: randomUUID(),
    campaignB: randomUUID(),
  };
  const catalog = {
    affiliates: [
      { id: ids.affiliateA, name: 'Test Affiliate A', status: 'active', dupe_check: true },
      { id: ids.affiliateB, name: 'Test Affiliate B', status: 'active', dupe_check: false },
    ],
    schools: [{ id: ids.school, name: 'Test School', logo_url: null }],
    partners: [
      { id: ids.partner, name: 'Test Partner', adapter: 'sandbox', base_url: `${sandboxUrl}/partners/test?match=all`, timeout_ms: 5000 },
    ],
    offers: [
      {
        id: ids.offer,
        name: 'Test Offer',
        school_id: ids.school,
        source: 'own',
        offer_type: 'shared',
        status: 'active',
        priority: 10,
        price: 40,
        tcpa_text: 'I agree to be contacted.',
        result_ttl_seconds: 900,
        programs: [{ value: 'bsn', label: 'BS in Nursing' }],
        form_fields: [],
        eligibility: {},
        caps: [],
        delivery: { adapter: 'sandbox', url: `${sandboxUrl}/schools/test/leads?outcome=accept`, timeout_ms: 5000 },
      },
      {
        id: ids.partnerOffer,
        name: 'Test Partner Offer',
        school_id: ids.school,
        source: 'partner',
        partner_id: ids.partner,
        external_id: `ext-${ids.partnerOffer}`,
        offer_type: 'shared',
        status: 'active',
        result_ttl_seconds: 900,
      },
    ],
    campaigns: [
      {
        id: ids.campaignA,
        affiliate_id: ids.affiliateA,
        name: 'A live',
        status: 'active',
        offers: [{ offer_id: ids.offer, payout: 20 }, { offer_id: ids.partnerOffer }],
      },
      { id: ids.campaignAPaused, affiliate_id: ids.affiliateA, name: 'A paused', status: 'paused', offers: [{ offer_id: ids.offer }] },
      { id: ids.campaignB, affiliate_id: ids.affiliateB, name: 'B live', status: 'active', offers: [{ offer_id: ids.offer }] },
    ],
  };
  return { ids, catalog };
}

/** A search body that passes validation. */
export function searchBody(campaignId: string, affiliateId: string, overrides: Record<string, unknown> = {}) {
  return {
    svc_campaign_id: campaignId,
    svc_affiliate_id: affiliateId,
    lead: {
      personal: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '512-555-0100', date_of_birth: '1995-04-12' },
      address: { state: 'TX', zip_code: '75001' },
      education: { education_level: 'associate', high_school_graduation_year: '2013' },
    },
    tracking: { ip_address: '73.12.44.10', subid: 'e2e' },
    ...overrides,
  };
}

/**
 * An active shared own offer of the catalog format (CATALOG.md) with one
 * program, delivered by the sandbox adapter to a URL (or with the given
 * delivery settings); `extra` overrides any field.
 */
export function ownOffer(
  offerId: string,
  schoolId: string,
  name: string,
  delivery: string | Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  return catalogOffer(offerId, schoolId, name, {
    source: 'own',
    priority: 5,
    price: 45,
    tcpa_text: `I agree that ${name} may contact me.`,
    result_ttl_seconds: 900,
    programs: [{ value: 'gen', label: 'General Studies' }],
    delivery: typeof delivery === 'string' ? { adapter: 'sandbox', url: delivery } : delivery,
    ...extra,
  });
}

/**
 * An offer of the catalog file format with only what every offer has (id,
 * name, school, active, shared); `fields` sets the rest (source, partner,
 * delivery, price, ...) or overrides any of these.
 */
export function catalogOffer(offerId: string, schoolId: string, name: string, fields: Record<string, unknown> = {}) {
  return { id: offerId, name, school_id: schoolId, offer_type: 'shared', status: 'active', ...fields };
}

/** An active shared partner offer of the catalog file format, its results asked of `partnerId` as `externalId`; `extra` overrides any field. */
export function partnerOffer(
  offerId: string,
  schoolId: string,
  name: string,
  partnerId: string,
  externalId: string,
  extra: Record<string, unknown> = {},
) {
  return catalogOffer(offerId, schoolId, name, { source: 'partner', partner_id: partnerId, external_id: externalId, ...extra });
}

/** A campaign of the catalog file format (active unless `extra` says otherwise) and the offers it sells, with their payouts. */
export function campaign(
  campaignId: string,
  affiliateId: string,
  name: string,
  offers: Array<Record<string, unknown>>,
  extra: Record<string, unknown> = {},
) {
  return { id: campaignId, affiliate_id: affiliateId, name, status: 'active', offers, ...extra };
}

/**
 * An offer as a campaign sells it (the domain's CampaignOffer): an active
 * shared own offer of campaign c1 paying 10, named after its id, its own
 * school, no program, question, cap or price; `over` sets any field.
 */
export function campaignOffer(over: Partial<CampaignOffer> = {}): CampaignOffer {
  const offerId = over.offerId ?? randomUUID();
  return {
    offerId,
    campaignId: 'c1',
    name: `Offer ${offerId}`,
    schoolId: `s-${offerId}`,
    schoolName: 'S',
    schoolLogoUrl: null,
    source: 'own',
    offerType: 'shared',
    status: 'active',
    priority: 1,
    tcpaText: null,
    resultTtlSeconds: 900,
    duplicateWindowDays: 30,
    eligibility: {},
    programs: [],
    formFields: [],
    payouts: payoutTerms(10, null),
    price: null,
    caps: [],
    delivery: null,
    externalId: null,
    partner: null,
    ...over,
  };
}
