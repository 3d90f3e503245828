/**
 * Fixed values of the catalog file (CATALOG.md, pinned). The database repeats
 * them as CHECK constraints; the catalog validator names them in its errors.
 */
export const AFFILIATE_STATUSES = ['active', 'paused'] as const;
export type AffiliateStatus = (typeof AFFILIATE_STATUSES)[number];

export const CAMPAIGN_STATUSES = ['active', 'paused'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const OFFER_STATUSES = ['active', 'paused'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];

export const OFFER_SOURCES = ['own', 'partner'] as const;
export type OfferSource = (typeof OFFER_SOURCES)[number];

export const OFFER_TYPES = ['shared', 'exclusive', 'true_exclusive'] as const;
export type OfferType = (typeof OFFER_TYPES)[number];

export const CAP_PERIODS = ['hour', 'day', 'week', 'month', 'total'] as const;
export type CapPeriod = (typeof CAP_PERIODS)[number];

export const DEFAULT_CAP_TIMEZONE = 'America/New_York';

/** Question (form field) types an offer may ask; answers of a `select` must be one of its options. */
export const QUESTION_TYPES = ['select', 'text', 'number'] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

/**
 * How the partner-adapter talks to a partner network: the sandbox partner
 * protocol, or generic JSON with a field map, a mapping of the answer and
 * response rules (docs/partner-adapter.md).
 */
export const PARTNER_ADAPTERS = ['sandbox', 'json'] as const;
export type PartnerAdapterName = (typeof PARTNER_ADAPTERS)[number];

/** How delivery talks to a school's system: the sandbox school protocol, or generic JSON with field mapping. */
export const DELIVERY_ADAPTERS = ['sandbox', 'json'] as const;

/**
 * Top-level keys of a submit request (affiliate-api.md). A question's answer
 * travels as a top-level key named as the question, so no question may take
 * one of these names.
 */
export const RESERVED_ANSWER_NAMES = [
  'svc_campaign_id',
  'svc_affiliate_id',
  'svc_result_id',
  'search_lead_id',
  'program_id',
  'tcpa_consent',
  'consent_button_label',
  'svc_is_test_lead',
  'svc_offer_id',
  'svc_lead_id',
  'lead',
  'tracking',
  'form_cert_url',
  'universal_lead_cert',
] as const;

/** Defaults applied when an optional catalog key is absent. */
export const CATALOG_DEFAULTS = {
  dupeCheck: false,
  partnerTimeoutMs: 10000,
  priority: 0,
  resultTtlSeconds: 900,
  duplicateWindowDays: 30,
} as const;
