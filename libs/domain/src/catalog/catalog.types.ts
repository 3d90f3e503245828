import type {
  AffiliateStatus,
  CampaignStatus,
  CapPeriod,
  OfferSource,
  OfferStatus,
  OfferType,
  QuestionType,
} from './catalog-vocabulary';
import { LEAD_GROUPS } from '../lead-input';

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
  response_rules?: DeliveryResponseRules;
  /**
   * The school's API answers a repeated `Idempotency-Key` with its first
   * answer and keeps one lead: a call cut by a crash is then sent again with
   * the same key (docs/delivery-adapters.md). Default false.
   */
  idempotent?: boolean;
}

export type JsonScalar = string | number | boolean | null;

/**
 * When a school's answer counts as one outcome. Every condition given must
 * hold: the HTTP status is one of `http_status`, and the JSON value at `path`
 * is one of `in` (or, with `exists`, is present and not null, or absent).
 * Without `http_status` a match only looks at 2xx answers.
 */
export interface DeliveryAnswerMatch {
  http_status?: number[];
  path?: string;
  in?: JsonScalar[];
  exists?: boolean;
}

/** One match, or a list of which any one is enough. */
export type DeliveryAnswerMatches = DeliveryAnswerMatch | DeliveryAnswerMatch[];

/** Tried in the order accepted, duplicate, rejected; a 2xx answer none matches is rejected. */
export interface DeliveryResponseRules {
  accepted: DeliveryAnswerMatches;
  duplicate?: DeliveryAnswerMatches;
  rejected?: DeliveryAnswerMatches;
  /** Where an accepted answer holds the school's id of the lead. */
  buyer_lead_id_path?: string;
  /** Where a duplicate or rejected answer holds the school's reason (kept for operators only). */
  reason_path?: string;
}

/** A value (`true`), a map whose keys are not fixed (`'any-key'`), or an object with these fields. */
export type LeadDocumentShape = true | 'any-key' | { readonly [field: string]: LeadDocumentShape };

/**
 * The default lead document every school adapter builds
 * (docs/delivery-adapters.md), as far as a field_map source may name it.
 * `tracking` keys are the sender's; `answers` keys are the offer's questions.
 */
export const LEAD_DOCUMENT_FIELDS: { readonly [field: string]: LeadDocumentShape } = {
  lead_id: true,
  offer: { id: true, name: true, school_name: true },
  lead: Object.fromEntries(Object.entries(LEAD_GROUPS).map(([group, fields]) => [group, Object.fromEntries(fields.map((f) => [f, true]))])),
  tracking: 'any-key',
  consumer_ip: true,
  program_id: true,
  answers: 'any-key',
  consent: {
    tcpa_consent: true,
    tcpa_text: true,
    button_label: true,
    consented_at: true,
    ip: true,
    form_cert_url: true,
    universal_lead_cert: true,
  },
  submitted_at: true,
};

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
