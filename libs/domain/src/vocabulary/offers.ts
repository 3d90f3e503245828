import type { OfferType } from '../catalog/catalog-vocabulary';

/**
 * The contract's Result entry (affiliate-api.md, "Result entry"), exactly as an
 * affiliate sees it in `offers` of a search or poll answer. Optional keys are
 * absent, not null, when the contract says "absent" (payouts); nullable keys
 * are null when the catalog has no value.
 */
export interface ResultEntry {
  svc_result_id: string;
  campaign_id: string | null;
  offer: {
    id: string;
    name: string;
    offer_type: OfferType;
    is_exclusive: boolean | null;
    tcpa_text: string | null;
  };
  school: { name: string; logo_url: string | null };
  programs: ResultProgram[];
  /** The caller's best payout on this result; absent when none is configured. */
  payout?: number;
  form_fields: FormField[];
  expires_at: string | null;
}

export interface ResultProgram {
  value: string;
  label: string;
  /** The caller's payout for the program; absent when none is configured. */
  payout?: number;
}

export interface FormFieldOption {
  value: string;
  label: string;
}

export interface FormField {
  name: string;
  label: string | null;
  type: string;
  required: boolean;
  required_when?: { program_ids: string[] };
  options?: FormFieldOption[];
}

/** Why an offer is left out of a search (stored for operators, never shown to affiliates). */
export type OfferRefusal =
  | 'offer_inactive'
  | 'not_on_campaign'
  | 'not_eligible'
  | 'no_eligible_program'
  | 'cap_reached'
  | 'duplicate'
  | 'sale_closed'
  | 'school_sold_exclusive'
  | 'opted_out';

/** The partner as the catalog configures it, snapshotted into a search's and a submit's messages. */
export interface PartnerRef {
  id: string;
  name: string;
  adapter: string;
  baseUrl: string;
  timeoutMs: number;
  /**
   * The adapter's settings as the catalog stores them (PartnerSettings in
   * catalog/catalog.types.ts: headers, the json adapter's search and submit).
   * Absent or null for a partner without any.
   */
  settings?: Record<string, unknown> | null;
}

/** One result a partner returned, validated and mapped back to our offer id. */
export interface PartnerOfferResult {
  offerId: string;
  externalId: string;
  partnerResultId: string;
  programs: Array<{ value: string; label: string }>;
  formFields: FormField[];
  tcpaText: string | null;
  school: { name: string; logoUrl: string | null } | null;
  /** Seconds the partner keeps the result open, when it says. */
  expiresInSeconds: number | null;
}
