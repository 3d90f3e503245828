import type {
  AffiliateStatus,
  CampaignStatus,
  CapPeriod,
  OfferSource,
  OfferStatus,
  OfferType,
  QuestionType,
} from './catalog-vocabulary';

/**
 * Eligibility rules of an offer or a program (CATALOG.md). Every key is
 * optional; a key that is present must hold for the lead, and a lead without
 * the field does not qualify. A program's rules narrow its offer's.
 * `us_citizen: true` asks for `us_citizen = yes`, `false` for `no`.
 */
export interface EligibilityRules {
  states?: string[];
  min_age?: number;
  max_age?: number;
  education_levels?: string[];
  min_hs_grad_year?: number;
  max_hs_grad_year?: number;
  military_affiliations?: string[];
  learning_preferences?: string[];
  start_timelines?: string[];
  us_citizen?: boolean;
  zip_prefixes?: string[];
}

export interface CatalogAffiliate {
  id: string;
  name: string;
  status: AffiliateStatus;
  dupe_check: boolean;
}

export interface CatalogSchool {
  id: string;
  name: string;
  logo_url: string | null;
}

export interface CatalogPartner {
  id: string;
  name: string;
  adapter: string;
  base_url: string;
  timeout_ms: number;
}

export interface CatalogProgram {
  value: string;
  label: string;
  eligibility: EligibilityRules;
}

export interface QuestionOption {
  value: string;
  label: string;
}

export interface CatalogQuestion {
  name: string;
  label: string | null;
  type: QuestionType;
  required: boolean;
  required_when: { program_ids: string[] } | null;
  options: QuestionOption[] | null;
}

export interface CatalogCap {
  period: CapPeriod;
  limit: number;
  timezone: string;
}

/** How delivery reaches a school's system (own offers only). Stored as given. */
export interface DeliverySettings {
  adapter: string;
  url: string;
  timeout_ms?: number;
  headers?: Record<string, string>;
  field_map?: Record<string, string>;
  response_rules?: Record<string, unknown>;
}

export interface CatalogOffer {
  id: string;
  name: string;
  school_id: string;
  source: OfferSource;
  partner_id: string | null;
  external_id: string | null;
  offer_type: OfferType;
  status: OfferStatus;
  priority: number;
  price: number | null;
  tcpa_text: string | null;
  result_ttl_seconds: number;
  duplicate_window_days: number;
  eligibility: EligibilityRules;
  programs: CatalogProgram[];
  form_fields: CatalogQuestion[];
  caps: CatalogCap[];
  delivery: DeliverySettings | null;
}

export interface CatalogCampaignOffer {
  offer_id: string;
  payout: number | null;
  program_payouts: Record<string, number> | null;
  caps: CatalogCap[];
}

export interface CatalogCampaign {
  id: string;
  affiliate_id: string;
  name: string;
  status: CampaignStatus;
  offers: CatalogCampaignOffer[];
}

/** A validated catalog file, defaults filled in, ids lower-case. */
export interface Catalog {
  affiliates: CatalogAffiliate[];
  schools: CatalogSchool[];
  partners: CatalogPartner[];
  offers: CatalogOffer[];
  campaigns: CatalogCampaign[];
}

/** One problem in a catalog file: the JSON path it concerns and what is wrong. */
export interface CatalogIssue {
  path: string;
  message: string;
}

/** What already exists in the database, for references the file makes but does not define. */
export interface KnownCatalogRefs {
  affiliateIds: ReadonlySet<string>;
  schoolIds: ReadonlySet<string>;
  partnerIds: ReadonlySet<string>;
  offers: ReadonlyMap<string, KnownOffer>;
}

export interface KnownOffer {
  source: OfferSource;
  partnerId: string | null;
  externalId: string | null;
  programValues: readonly string[];
}

export const NO_KNOWN_REFS: KnownCatalogRefs = {
  affiliateIds: new Set(),
  schoolIds: new Set(),
  partnerIds: new Set(),
  offers: new Map(),
};
