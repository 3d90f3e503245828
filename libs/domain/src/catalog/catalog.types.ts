import type {
  AffiliateStatus,
  CampaignStatus,
  CapPeriod,
  OfferSource,
  OfferStatus,
  OfferType,
  PartnerAdapterName,
  QuestionType,
} from './catalog-vocabulary';
import type { ResponseRules } from '../mapping/mapping.types';
import type { SearchField } from '../partners/search-view';

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
  adapter: PartnerAdapterName;
  base_url: string;
  timeout_ms: number;
  /** The adapter's settings (docs/partner-adapter.md); null when it has none (a sandbox partner without headers). */
  settings: PartnerSettings | null;
}

/**
 * How partner-adapter talks to a partner network beyond its base_url, as the
 * catalog gives it: `headers` (both adapters; values may reference
 * `${env:NAME}`, and must for a credential), `search_fields` (both: what it
 * is sent at search), and for the `json` adapter the search call and how its
 * answer is read, and the submit call and its response rules.
 */
export interface PartnerSettings {
  headers?: Record<string, string>;
  /**
   * What the partner is sent at search (partners/search-view.ts); absent:
   * DEFAULT_SEARCH_FIELDS, which hold no contact data.
   */
  search_fields?: SearchField[];
  search?: PartnerSearchSettings;
  submit?: PartnerSubmitSettings;
}

export interface PartnerSearchSettings {
  /** Appended to base_url's path (base_url's query is kept); default `search`. */
  path?: string;
  /** Target in the partner's body → a source in the search document, or `=literal`. Absent: the search document as it is. */
  field_map?: Record<string, string>;
  /** Where the answer's offers are and how each is read. */
  results: OfferListMapping;
}

export interface PartnerSubmitSettings {
  /** Appended to base_url's path (base_url's query is kept); default `submit`. */
  path?: string;
  /** Target in the partner's body → a source in the submit document, or `=literal`. Absent: the submit document as it is. */
  field_map?: Record<string, string>;
  /** Absent: the sandbox protocol's answer (`result`: accepted / duplicate / rejected, `id`, `reason`). */
  response_rules?: ResponseRules;
}

/**
 * How a partner's search answer is read. Every value is a dotted path: `list`
 * from the answer (`$` for an answer that is itself the list), the others from
 * one entry of that list (or, for choices and questions, from one item of
 * their own list).
 */
export interface OfferListMapping {
  list: string;
  /** The search id the answer echoes: when the answer has one, it must be ours. */
  search_id?: string;
  /** The partner's id of the offer: names one of the catalog's partner offers that were asked about. */
  external_id: string;
  partner_result_id: string;
  programs: ChoiceListMapping;
  questions?: QuestionMapping;
  tcpa_text?: string;
  /** `path`: an object holding the school's fields (absent or null: no school); without it the fields are the entry's. */
  school?: { path?: string; name: string; logo_url?: string };
  /** How long the result may be submitted: a positive integer in `unit`... */
  expires_in?: { path: string; unit: ExpiryUnit };
  /** ...or an ISO 8601 time. */
  expires_at?: string;
}

export const EXPIRY_UNITS = ['seconds', 'minutes', 'hours'] as const;
export type ExpiryUnit = (typeof EXPIRY_UNITS)[number];

/** A list of `{ value, label }` (programs, a question's options); without `label` the value is the label. */
export interface ChoiceListMapping {
  list: string;
  value: string;
  label?: string;
}

export const QUESTION_PLACES = ['offer', 'program'] as const;

/**
 * A result's questions: a list on the offer entry (`under: offer`, the
 * default), or a list on each program (`under: program`: a question one
 * program lists as required is required when that program is chosen, and
 * required outright when every program of the result does).
 */
export interface QuestionMapping {
  list: string;
  under?: (typeof QUESTION_PLACES)[number];
  name: string;
  label?: string;
  /** Absent: `select` when the question has options, else `text`. */
  type?: string;
  /** The partner's type values → ours; absent: the value must be one of ours. */
  types?: Record<string, QuestionType>;
  /** A boolean; absent from the mapping: never required. */
  required?: string;
  /** A list of program values (questions under the offer only). */
  required_when?: string;
  options?: ChoiceListMapping;
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
  /**
   * Where revocation notices go (docs/opt-outs.md): POSTed with the delivery's
   * headers. Absent: the school's notices wait in `optout status` for an
   * operator to send by other means.
   */
  revocation_url?: string;
}

/**
 * An own offer's return policy as the catalog file gives it (docs/returns.md);
 * stored as is (`offers.returns`). An offer without one takes no returns.
 */
export interface CatalogReturnPolicy {
  window_days: number;
  reasons: string[];
  /** Default false. */
  refunds_cap: boolean;
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
  /** Null: the offer takes no returns. */
  returns: CatalogReturnPolicy | null;
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
