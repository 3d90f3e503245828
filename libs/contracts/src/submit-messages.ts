import type { ApiCode, OutcomeStatus } from './api-codes';
import type { LeadPayload, PartnerRef } from './messages';
import type { FormField } from './result-entry';

/**
 * gateway -> delivery (request/reply). The gateway has already checked the
 * key, the affiliate, the campaign and that the result (or offer, or earlier
 * lead) is the caller's; delivery decides. `leadId` is chosen by the gateway,
 * so a PENDING answer can name the lead before it is stored.
 */
export interface SubmitRequestedV1 {
  leadId: string;
  kind: 'result_submit' | 'direct_post';
  affiliateId: string;
  apiKeyId: string;
  campaignId: string;
  /** Result submit: the result and the search it came from. */
  resultId: string | null;
  searchId: string | null;
  /** Direct post: the offer; on a retry, the lead id returned earlier (`svc_lead_id`). */
  offerId: string | null;
  originLeadId: string | null;
  /** Direct post: the whole lead. Result submit: the lead fields sent with the submit (they replace the search's), or null. */
  lead: LeadPayload | null;
  /** Direct post only (a result submit takes them from the search). */
  tracking: Record<string, string> | null;
  consumerIp: string | null;
  ipSource: 'consumer' | 'caller_server' | null;
  programId: string | null;
  /** Every top-level key that is not an envelope field: the answers to the result's questions. */
  answers: Record<string, unknown>;
  tcpaConsent: boolean | null;
  consentButtonLabel: string | null;
  formCertUrl: string | null;
  universalLeadCert: string | null;
  isTest: boolean;
  requestedAt: string;
}

/** What the gateway answers for a submit, whatever decided it (also the lead-status read). */
export interface SubmitDecision {
  leadId: string;
  status: OutcomeStatus;
  code: ApiCode;
  reason: string;
  /** Accepted: the payout booked, null when none is configured. Anything else: 0. */
  payout: number | null;
  isTest: boolean;
  /** Who decided: the service's checks, or the buyer's (school's or partner's) system. */
  decidedBy: 'service' | 'buyer' | null;
  decidedAt: string | null;
  offerId: string;
  resultId: string | null;
  searchId: string | null;
  /** For a refusal about one field of the request: its name. */
  field?: string;
}

/** A submit refused before anything is stored, with the contract's HTTP error (e.g. 403 for a change to a submitted lead). */
export interface SubmitRefusal {
  httpStatus: 403 | 404;
  code: ApiCode;
  reason: string;
  error?: string;
}

export type SubmitAnswerV1 = { kind: 'decision'; decision: SubmitDecision } | { kind: 'refused'; refusal: SubmitRefusal };

/** delivery -> checks (request/reply): everything the submit-time checks need, the catalog aside. */
export interface SubmitChecksRequestedV1 {
  leadId: string;
  campaignId: string;
  offerId: string;
  isTest: boolean;
  lead: LeadPayload;
  programId: string | null;
  answers: Record<string, unknown>;
  tcpaConsent: boolean | null;
  /** Result submit: the result's expiry. */
  expiresAt: string | null;
  /**
   * The programs and questions the consumer was shown: the result entry's on a
   * result submit (a partner supplies its own), null on a direct post (the
   * catalog's then).
   */
  shown: { programs: Array<{ value: string; label: string }>; formFields: FormField[] } | null;
  /** The lead whose sales count (the search, or the first direct post), null for a new direct post. */
  leadGroupId: string | null;
}

/** A refusal inside a 200 submit answer (LEAD-FIELDS.md refusal table). */
export interface SubmitCheckRefusal {
  status: Extract<OutcomeStatus, 'invalid' | 'rejected'>;
  code: ApiCode;
  reason: string;
  field?: string;
}

export interface SubmitChecksAnswerV1 {
  leadId: string;
  /** null: every check passed. */
  refusal: SubmitCheckRefusal | null;
  /** The program the lead is sold with (the one sent, or the only one the result has). */
  programId: string | null;
  /** Answers normalized to strings, only the result's questions. */
  answers: Record<string, string>;
}

/** delivery -> partner-adapter (request/reply): post one chosen partner result. */
export interface PartnerSubmitRequestedV1 {
  leadId: string;
  searchId: string;
  partner: PartnerRef;
  partnerResultId: string;
  lead: LeadPayload;
  programId: string | null;
  answers: Record<string, string>;
  /**
   * Delivery stops waiting at this time and decides without the partner: a
   * request handled later is not sent (it would sell a lead nobody records).
   */
  notAfter: string;
}

export type PartnerSubmitAnswerV1 =
  | { leadId: string; outcome: 'accepted'; partnerLeadId: string | null }
  | { leadId: string; outcome: 'rejected'; detail: string | null }
  | { leadId: string; outcome: 'duplicate' }
  | { leadId: string; outcome: 'timeout' | 'error'; detail: string };
