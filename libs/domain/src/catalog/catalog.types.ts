import type {
  AffiliateStatus,
  CampaignStatus,
  CapPeriod,
  OfferSource,
  OfferStatus,
  OfferType,
  QuestionType,
} from './catalog-vocabulary';
import type { ResponseRules } from '../mapping/mapping.types';

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

/**
 * How delivery reaches a school's system (own offers only; docs/delivery-adapters.md).
 * Stored as given. `headers` values may reference environment variables as
 * `${env:NAME}`, so secrets stay out of the catalog.
 */
export type DeliverySettings = SandboxDeliverySettings | JsonDeliverySettings;

interface DeliveryEndpoint {
  url: string;
  /** How long to wait for the school's answer; default 8000. */
  timeout_ms?: number;
  headers?: Record<string, string>;
}

/** The sandbox school protocol (docs/sandbox.md): the default lead document, a fixed answer. */
export interface SandboxDeliverySettings extends DeliveryEndpoint {
  adapter: 'sandbox';
}

/** A real school's JSON API: what to send (`field_map`) and how to read its answer (`response_rules`). */
export interface JsonDeliverySettings extends DeliveryEndpoint {
  adapter: 'json';
  /**
   * Dotted path in the school's body → a source: a path in the default lead
   * document (`lead.personal.email`, `answers.<question>`, `consent.ip`, …) or a
   * literal written `=text`. Absent: the default document is sent as it is.
   */
  field_map?: Record<string, string>;
  /** Absent: the sandbox protocol's answer (`result`: accepted / duplicate / rejected, `id`, `reason`). */
  response_rules?: ResponseRules;
  /**
   * The school's API answers a repeated `Idempotency-Key` with its first
   * answer and keeps one lead: a call cut by a crash is then sent again with
   * the same key (docs/delivery-adapters.md). Default false.
   */
  idempotent?: boolean;
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
