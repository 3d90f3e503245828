/**
 * The contract's answer vocabulary (affiliate-api.md, LEAD-FIELDS.md). Every
 * error crosses process boundaries as one of these stable codes; the decision
 * catalog (decisions/) says which answer gets which, and the gateway maps
 * them to HTTP in one place (apps/gateway/src/http/error-envelope.ts).
 */
export const OUTCOME_STATUSES = ['accepted', 'saved', 'pending', 'held', 'rejected', 'invalid', 'failed'] as const;
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];

export const API_CODES = [
  'OK',
  'ACCEPTED',
  'DUPLICATE',
  'NOT_ELIGIBLE',
  'CAP_REACHED',
  'BUYER_REJECTED',
  'PENDING',
  'TEST_LEAD_HELD',
  'OFFER_UNAVAILABLE',
  'REQUIRED_FIELD_MISSING',
  'INVALID_FIELD',
  'CONSENT_REQUIRED',
  'NOT_FOUND',
  'FORBIDDEN',
  'AUTH_REQUIRED',
  'AUTH_INVALID',
  'MALFORMED_REQUEST',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'UNAVAILABLE',
  'ALREADY_RETURNED',
  'RETURN_WINDOW_CLOSED',
] as const;
export type ApiCode = (typeof API_CODES)[number];

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
