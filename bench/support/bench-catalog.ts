import { randomUUID } from 'node:crypto';
import type { BaselinePartnerCall } from '../baselines/search-baseline';

export const OWN_OFFERS = 46;
export const PARTNER_OFFERS = 4;
/** The campaign's payout on each partner offer. */
const PARTNER_PAYOUT = 12.5;

/**
 * The bench's catalog: one affiliate and a 50-offer campaign — 46 own offers,
 * each on a school of its own (so a live search shows all of them), with three
 * programs (one behind program eligibility), two select questions, offer
 * eligibility, a day cap too large to matter and campaign payouts; and 4
 * partner offers across 2 sandbox partners answering after 300 ms.
 */
export function benchCatalog(sandboxUrl: string, size: { own: number; partner: number } = { own: OWN_OFFERS, partner: PARTNER_OFFERS }) {
  const affiliateId = randomUUID();
  const campaignId = randomUUID();
  const partners = ['bench-a', 'bench-b'].map((name) => ({
    id: randomUUID(),
    name: `Bench partner ${name}`,
    adapter: 'sandbox',
    base_url: `${sandboxUrl}/partners/${name}?delay_ms=300&match=all`,
    timeout_ms: 5000,
  }));
  const schools = Array.from({ length: size.own + size.partner }, (_, i) => ({
    id: randomUUID(),
    name: `Bench College ${i + 1}`,
    logo_url: `https://cdn.example.org/bench/college-${i + 1}.png`,
  }));
  const own = schools.slice(0, size.own).map((school, i) => ({
    id: randomUUID(),
    name: `${school.name} Online Programs`,
    school_id: school.id,
    source: 'own',
    offer_type: i % 10 === 0 ? 'exclusive' : 'shared',
    status: 'active',
    priority: i % 20,
    price: 30 + (i % 7),
    tcpa_text: `By clicking Request Info I agree that ${school.name} and its representatives may contact me by phone, text or email, including by automated means, about its programs. Consent is not a condition of purchase.`,
    result_ttl_seconds: 900,
    programs: [
      { value: 'bsn', label: 'BS in Nursing', eligibility: { education_levels: ['associate', 'bachelor'] } },
      { value: 'bba', label: 'BBA in Business Administration' },
      { value: 'cj', label: 'BS in Criminal Justice' },
    ],
    form_fields: [
      {
        name: 'hs_grad_year',
        label: 'High school graduation year',
        type: 'select',
        required: true,
        options: ['2010', '2011', '2012', '2013', '2014', '2015'].map((y) => ({ value: y, label: y })),
      },
      {
        name: 'rn_license',
        label: 'Do you hold an active RN license?',
        type: 'select',
        required: false,
        required_when: { program_ids: ['bsn'] },
        options: [
          { value: 'yes', label: 'Yes' },
          { value: 'no', label: 'No' },
        ],
      },
    ],
    eligibility: { states: ['TX', 'CA', 'FL', 'NY'], min_age: 18 },
    caps: [{ period: 'day', limit: 1_000_000, timezone: 'America/New_York' }],
    delivery: { adapter: 'sandbox', url: `${sandboxUrl}/schools/bench/leads`, timeout_ms: 5000 },
  }));
  const partnerOffers = schools.slice(size.own).map((school, i) => ({
    id: randomUUID(),
    name: `Partner: ${school.name}`,
    school_id: school.id,
    source: 'partner',
    partner_id: partners[i % 2].id,
    external_id: `bench-${i + 1}`,
    offer_type: 'shared',
    status: 'active',
    priority: 15,
    result_ttl_seconds: 900,
  }));
  const catalog = {
    affiliates: [{ id: affiliateId, name: `Bench Affiliate ${affiliateId.slice(0, 8)}`, status: 'active', dupe_check: false }],
    schools,
    partners: size.partner > 0 ? partners : [],
    offers: [...own, ...partnerOffers],
    campaigns: [
      {
        id: campaignId,
        affiliate_id: affiliateId,
        name: `Bench ${size.own + size.partner}-offer campaign`,
        status: 'active',
        offers: [
          ...own.map((o, i) => ({ offer_id: o.id, payout: 20 + (i % 5), ...(i % 3 === 0 ? { program_payouts: { bsn: 35 } } : {}) })),
          ...partnerOffers.map((o) => ({ offer_id: o.id, payout: PARTNER_PAYOUT })),
        ],
      },
    ],
  };
  // The partner round as the search baseline makes it (BENCH_PARTNER_CALLS): each partner as the orchestrator asks it, and its offers.
  const partnerCalls: BaselinePartnerCall[] = catalog.partners.map((p) => ({
    partner: { id: p.id, name: p.name, adapter: p.adapter, baseUrl: p.base_url, timeoutMs: p.timeout_ms },
    offers: partnerOffers
      .filter((o) => o.partner_id === p.id)
      .map((o) => ({ offerId: o.id, externalId: o.external_id, name: o.name, payout: PARTNER_PAYOUT })),
  }));
  return { catalog, affiliateId, campaignId, partnerCalls };
}

/**
 * i in letters (0 -> a, 26 -> ba): names are normalized to letters for the
 * duplicate key (last name + ZIP + date of birth), so digits would make every
 * bench person the same person.
 */
function letters(i: number): string {
  let out = '';
  do {
    out = String.fromCharCode(97 + (i % 26)) + out;
    i = Math.floor(i / 26);
  } while (i > 0);
  return out;
}

/** The i-th person of a run: a different email, phone and last name each time, a lead every bench offer takes. */
export function benchLead(run: string, i: number) {
  return {
    personal: {
      first_name: 'Ada',
      last_name: `Bench${letters(i)}`,
      email: `ada.${run}.${i}@example.com`,
      phone: `512${200 + (Math.floor(i / 10_000) % 800)}${String(i % 10_000).padStart(4, '0')}`,
      date_of_birth: '1995-04-12',
    },
    address: { address_line_1: '100 Congress Ave', city: 'Austin', state: 'TX', zip_code: '78701' },
    education: {
      education_level: 'associate',
      high_school_graduation_year: '2013',
      start_timeline: 'immediately',
      learning_preference: 'online',
    },
    background: { military_affiliation: 'none', us_citizen: 'yes' },
  };
}

/** A search body for the i-th person of the run. */
export function benchSearchBody(campaignId: string, affiliateId: string, run: string, i: number) {
  return {
    svc_campaign_id: campaignId,
    svc_affiliate_id: affiliateId,
    lead: benchLead(run, i),
    tracking: { ip_address: '73.12.44.10', subid: 'bench', utm_source: 'bench' },
    tcpa_consent: true,
  };
}

type BenchCatalog = ReturnType<typeof benchCatalog>['catalog'];

/** Several bench catalogs as one file (catalog apply syncs the whole catalog, so they go in together). */
export function mergeCatalogs(catalogs: BenchCatalog[]): BenchCatalog {
  return {
    affiliates: catalogs.flatMap((c) => c.affiliates),
    schools: catalogs.flatMap((c) => c.schools),
    partners: catalogs.flatMap((c) => c.partners),
    offers: catalogs.flatMap((c) => c.offers),
    campaigns: catalogs.flatMap((c) => c.campaigns),
  };
}
