import type { ApiCode, OutcomeStatus } from '../vocabulary/answers';

/**
 * One answer the service gives: the contract's `code`, `status` and `reason`
 * (affiliate-api.md, "Answer envelope", "Submit answer", "Errors"), the HTTP
 * status it travels with, whether the caller may retry it as is, and for a
 * submit decision who made it. Every answer the gateway sends is built from
 * an entry of this catalog (or one of its builders); no reason text is
 * written anywhere else.
 */
export interface Decision {
  readonly http: number;
  readonly code: ApiCode;
  readonly status: OutcomeStatus;
  readonly reason: string;
  readonly retryable: boolean;
  /** Submit decisions: the service's rules, or the buyer's (school's or partner's) system. */
  readonly decidedBy?: 'service' | 'buyer';
  /** The contract's `error` value (e.g. `search_result_not_found`). */
  readonly error?: string;
  /** The request field the answer is about, named as the caller sent it. */
  readonly field?: string;
  /** 429 and 503: whole seconds before a retry may succeed (`retry_after_seconds`, `Retry-After`). */
  readonly retryAfterSeconds?: number;
}

const d = (http: number, code: ApiCode, status: OutcomeStatus, reason: string, more: Partial<Decision> = {}): Decision =>
  Object.freeze({ http, code, status, reason, retryable: false, ...more });
const service = { decidedBy: 'service' } as const;
const buyer = { decidedBy: 'buyer' } as const;

/**
 * Submit decisions (HTTP 200, PENDING 202; affiliate-api.md "Submit answer",
 * "Errors: Decision codes in a 200 answer"). A reason ending in ` - Client`
 * means the school's own system decided; the buyer's own words are never
 * passed through (kept for operators in delivery_attempts.detail).
 */
export const SUBMIT = {
  /** "An accepted submit answers the payout booked for that lead." */
  accepted: d(200, 'ACCEPTED', 'accepted', 'Lead accepted', buyer),
  /** "PENDING answers HTTP 200 or 202 and is not final." */
  pending: d(202, 'PENDING', 'pending', 'Lead pending'),
  /** Test mode: "answers code TEST_LEAD_HELD, status held, reason Test lead held". */
  testLeadHeld: d(200, 'TEST_LEAD_HELD', 'held', 'Test lead held', service),
  /** "Duplicate - Offer (the service already has the lead for that offer)", also a repost to an offer that has the lead. */
  duplicateOffer: d(200, 'DUPLICATE', 'rejected', 'Duplicate - Offer', service),
  /** "Duplicate - Client (the school's system said duplicate)". */
  duplicateClient: d(200, 'DUPLICATE', 'rejected', 'Duplicate - Client', buyer),
  /** BUYER_REJECTED: "the buyer's own answer is translated to a standardized reason, never passed through". */
  buyerRejected: d(200, 'BUYER_REJECTED', 'rejected', 'Rejected - Client', buyer),
  /** The buyer did not answer within its deadline (or the call was interrupted): the lead is not sent twice, so it is not sold. */
  buyerNoResponse: d(200, 'BUYER_REJECTED', 'rejected', 'No response - Client', buyer),
  /** The buyer's system failed (HTTP 5xx, an unreadable answer). */
  buyerError: d(200, 'BUYER_REJECTED', 'rejected', 'Error - Client', buyer),
  /** NOT_ELIGIBLE: "all eligibility refusals". */
  notEligible: d(200, 'NOT_ELIGIBLE', 'rejected', 'Not eligible', service),
  /** Offer types: a `true_exclusive` sale "ends the lead's other sales". */
  soldExclusively: d(200, 'NOT_ELIGIBLE', 'rejected', 'Lead already sold exclusively', service),
  /** "max_accepted_submissions is 3 at present." */
  soldMaxTimes: d(200, 'NOT_ELIGIBLE', 'rejected', 'Lead already sold the maximum number of times', service),
  /** An `exclusive` sale is "sold as exclusive for its school". */
  schoolBoughtExclusive: d(200, 'NOT_ELIGIBLE', 'rejected', 'School already bought this lead exclusively', service),
  /** Exclusivity cannot be sold after the fact (docs/submit.md). */
  exclusiveAfterSale: d(200, 'NOT_ELIGIBLE', 'rejected', 'Lead already sold; exclusive sale not possible', service),
  /** CAP_REACHED: "all caps, with no level in the code, reason or message". */
  capReached: d(200, 'CAP_REACHED', 'rejected', 'Cap reached', service),
  /** "After expires_at: refused with OFFER_UNAVAILABLE"; also an offer no longer active on the campaign. */
  offerUnavailable: d(200, 'OFFER_UNAVAILABLE', 'rejected', 'Offer unavailable', service),
  /** Consent is "sent with every submit": absent is a missing field. */
  consentMissing: d(200, 'REQUIRED_FIELD_MISSING', 'invalid', 'Missing tcpa_consent', { ...service, field: 'tcpa_consent' }),
  /** The consumer declined consent. */
  consentRequired: d(200, 'CONSENT_REQUIRED', 'invalid', 'Consent required', { ...service, field: 'tcpa_consent' }),
  /** `program_id` left out while the result has several programs. */
  programMissing: d(200, 'REQUIRED_FIELD_MISSING', 'invalid', 'Missing program', { ...service, field: 'program_id' }),
  /** `program_id` is none of the result's `programs[].value`. */
  programUnknown: d(200, 'INVALID_FIELD', 'invalid', 'Unknown program', { ...service, field: 'program_id' }),
  /** "REQUIRED_FIELD_MISSING (a required answer left out, naming the field). Example reason: Missing HS grad year." */
  answerMissing: (label: string, field: string) => d(200, 'REQUIRED_FIELD_MISSING', 'invalid', `Missing ${label}`, { ...service, field }),
  /** An answer outside the question's options, or not of its type. */
  answerInvalid: (label: string, field: string) => d(200, 'INVALID_FIELD', 'invalid', `Invalid ${label}`, { ...service, field }),
} as const;

/** How a buyer's (school's or partner's) system took a lead, before translation. */
export type BuyerOutcome = 'accepted' | 'duplicate' | 'rejected' | 'timeout' | 'error' | 'interrupted';

/** The standardized answer for each buyer outcome. */
export function buyerDecision(outcome: BuyerOutcome): Decision {
  switch (outcome) {
    case 'accepted':
      return SUBMIT.accepted;
    case 'duplicate':
      return SUBMIT.duplicateClient;
    case 'rejected':
      return SUBMIT.buyerRejected;
    case 'timeout':
    case 'interrupted':
      return SUBMIT.buyerNoResponse;
    case 'error':
      return SUBMIT.buyerError;
  }
}

/** Every fixed submit decision, for lookups by code and reason (a stored lead's decision). */
const FIXED_SUBMIT: readonly Decision[] = Object.values(SUBMIT).filter((v): v is Decision => typeof v === 'object');

/**
 * A stored decision (leads.code, leads.reason, leads.status, leads.decided_by)
 * as a catalog entry: the fixed entry with that code and reason when there is
 * one, else (the answer builders' reasons) the stored values.
 */
export function storedDecision(row: {
  code: string | null;
  reason: string | null;
  status: string;
  decidedBy: 'service' | 'buyer' | null;
  field: string | null;
}): Decision {
  if (row.status === 'pending' || row.code === null) return SUBMIT.pending;
  const fixed = FIXED_SUBMIT.find((x) => x.code === row.code && x.reason === row.reason);
  if (fixed) return fixed;
  return d(200, row.code as ApiCode, row.status as OutcomeStatus, row.reason ?? '', {
    ...(row.decidedBy ? { decidedBy: row.decidedBy } : {}),
    ...(row.field ? { field: row.field } : {}),
  });
}

/** Successful answers of search, results and the duplicate pre-check. */
export const OK = d(200, 'OK', 'accepted', 'OK');

/** The buyer API's answer to a return it booked (docs/returns.md). */
export const RETURNED = d(200, 'OK', 'accepted', 'Lead returned');

/**
 * Refusals with their HTTP status (affiliate-api.md, "Authentication",
 * "Errors", and docs/decisions.md for those the contract does not name).
 */
export const REFUSAL = {
  /** 401: "No key sent." */
  authRequired: d(401, 'AUTH_REQUIRED', 'invalid', 'Missing API key'),
  /** 401: "Key unknown, revoked or expired." */
  authInvalid: d(401, 'AUTH_INVALID', 'invalid', 'Invalid API key'),
  /** 401: two different keys on one request (which one is meant would be a guess). */
  severalKeys: d(401, 'AUTH_INVALID', 'invalid', 'Invalid API key', { error: 'several_api_keys' }),
  /** 403: "Campaign, offer or lead not the caller's, or the request is not allowed for the key." */
  forbidden: d(403, 'FORBIDDEN', 'invalid', 'Not permitted'),
  /** 403: "svc_affiliate_id is not the key's affiliate". */
  affiliateMismatch: d(403, 'FORBIDDEN', 'invalid', 'Not permitted', { error: 'affiliate_mismatch' }),
  /** 403: a paused affiliate's keys are valid but may not call. */
  affiliatePaused: d(403, 'FORBIDDEN', 'invalid', 'Not permitted', { error: 'affiliate_paused' }),
  /** 403: "the request is not allowed for the key": an affiliate's key on the buyer API, or a school's key on the affiliate API. */
  keyNotPermitted: d(403, 'FORBIDDEN', 'invalid', 'Not permitted', { error: 'key_not_permitted' }),
  /** 403 on results: "campaign or offer not the caller's". */
  campaignNotOwned: d(403, 'FORBIDDEN', 'invalid', 'Not permitted', { error: 'campaign_not_owned' }),
  /** 403 on leads: "campaign not one of the result's (error result_campaign_mismatch)". */
  resultCampaignMismatch: d(403, 'FORBIDDEN', 'invalid', 'Not permitted', { error: 'result_campaign_mismatch' }),
  /** 403: "Submitted lead: request that would change its data: refused with 403 FORBIDDEN; nothing is saved." */
  leadAlreadySubmitted: d(403, 'FORBIDDEN', 'invalid', 'Lead already submitted; its data cannot change'),
  /** 404 on results: "no search with that id belongs to the key" (also a malformed id: nothing leaks). */
  searchNotFound: d(404, 'NOT_FOUND', 'invalid', 'Search not found'),
  /** 404 on leads: "result ... unknown to the key (error search_result_not_found for another affiliate's result)". */
  resultNotFound: d(404, 'NOT_FOUND', 'invalid', 'Search result not found', { error: 'search_result_not_found' }),
  /** 404 on leads: an offer unknown to the key. */
  offerNotFound: d(404, 'NOT_FOUND', 'invalid', 'Offer not found', { field: 'svc_offer_id' }),
  /** 404 on leads: a lead unknown to the key. */
  leadNotFound: d(404, 'NOT_FOUND', 'invalid', 'Lead not found'),
  /** 404 on leads: a direct post's `svc_lead_id` unknown to the key. */
  originLeadNotFound: d(404, 'NOT_FOUND', 'invalid', 'Lead not found', { field: 'svc_lead_id' }),
  /** 404 on buyer returns: a lead the school did not buy (never received, another school's, not accepted): nothing says whose it is. */
  returnLeadNotFound: d(404, 'NOT_FOUND', 'invalid', 'Lead not found', { field: 'svc_lead_id' }),
  /** 409 on buyer returns: the lead was returned before; a return has one effect (docs/returns.md). */
  alreadyReturned: d(409, 'ALREADY_RETURNED', 'rejected', 'Lead already returned', { field: 'svc_lead_id' }),
  /** 409 on buyer returns: the offer's return window has passed since the sale was accepted. */
  returnWindowClosed: d(409, 'RETURN_WINDOW_CLOSED', 'rejected', 'Return window closed', { field: 'svc_lead_id' }),
  /** 409 on buyer returns: the offer has no return policy, so it takes no returns (no window at all). */
  noReturnPolicy: d(409, 'RETURN_WINDOW_CLOSED', 'rejected', 'Offer accepts no returns', {
    field: 'svc_lead_id',
    error: 'no_return_policy',
  }),
  /** 400 on buyer returns: a reason code that is not one of the offer's (`reasons`: the offer's codes, listed). */
  returnReasonUnknown: (reasons: string) =>
    d(400, 'INVALID_FIELD', 'invalid', `reason must be one of the offer's return reasons: ${reasons}`, { field: 'reason' }),
  /** 400 on search: "NOT_FOUND when the campaign is not active or not the caller's". */
  campaignNotActive: d(400, 'NOT_FOUND', 'invalid', 'Campaign not found or not active', { field: 'svc_campaign_id' }),
  /** 409 on leads: "MALFORMED_REQUEST: search_lead_id missing". */
  searchLeadIdMissing: d(409, 'MALFORMED_REQUEST', 'invalid', 'Missing search_lead_id for a result submit', { field: 'search_lead_id' }),
  /** 400: a required field is missing; the field is named. */
  fieldMissing: (field: string, reason = `Missing field ${field}`) => d(400, 'REQUIRED_FIELD_MISSING', 'invalid', reason, { field }),
  /** 400: a field is invalid; the field is named. */
  fieldInvalid: (field: string, reason: string) => d(400, 'INVALID_FIELD', 'invalid', reason, { field }),
  /** A partner offer can be submitted only from a search result (result-submit rule 6). */
  partnerOfferPosted: d(400, 'INVALID_FIELD', 'invalid', 'svc_offer_id is a partner offer: submit it from a search result', {
    field: 'svc_offer_id',
  }),
  /** A text field holding what no JSON text should (NUL, unpaired surrogates). */
  badText: (field: string) =>
    d(400, 'INVALID_FIELD', 'invalid', `${field} must be text without NUL characters or unpaired surrogates`, { field }),
  /** Duplicate pre-check: "400 (MALFORMED_REQUEST: no usable lead field". */
  noUsableLeadField: d(400, 'MALFORMED_REQUEST', 'invalid', 'No usable lead field'),
  /** Opt-outs: an email or a phone, raw (normalizable) or hashed, is needed to suppress anyone. */
  noUsableContactField: d(400, 'MALFORMED_REQUEST', 'invalid', 'No usable email or phone'),
  /** Malformed requests the contract does not name (docs/decisions.md). */
  bodyEmpty: d(400, 'MALFORMED_REQUEST', 'invalid', 'Request body is empty'),
  bodyNotObject: d(400, 'MALFORMED_REQUEST', 'invalid', 'Request body must be a JSON object'),
  bodyNotJson: d(400, 'MALFORMED_REQUEST', 'invalid', 'Malformed JSON body'),
  bodyNotUtf8: d(400, 'MALFORMED_REQUEST', 'invalid', 'Request body is not valid UTF-8'),
  bodyTooDeep: (levels: number) => d(400, 'MALFORMED_REQUEST', 'invalid', `Request body is nested deeper than ${levels} levels`),
  bodyLengthMismatch: d(400, 'MALFORMED_REQUEST', 'invalid', 'Request body length does not match Content-Length'),
  bodyTooLarge: d(413, 'MALFORMED_REQUEST', 'invalid', 'Request body too large'),
  notJsonContent: d(415, 'MALFORMED_REQUEST', 'invalid', 'Content-Type must be application/json'),
  notJsonUtf8Content: d(415, 'MALFORMED_REQUEST', 'invalid', 'Content-Type must be application/json (UTF-8)'),
  contentEncoding: d(415, 'MALFORMED_REQUEST', 'invalid', 'Content-Encoding is not supported: send the body uncompressed'),
  malformedRequest: (http = 400) => d(http, 'MALFORMED_REQUEST', 'invalid', 'Malformed request'),
  malformedHttp: d(400, 'MALFORMED_REQUEST', 'invalid', 'Malformed HTTP request'),
  malformedUrl: d(400, 'MALFORMED_REQUEST', 'invalid', 'Malformed URL (invalid percent-encoding)'),
  headersTooLarge: d(431, 'MALFORMED_REQUEST', 'invalid', 'Request headers too large'),
  requestTimeout: d(408, 'MALFORMED_REQUEST', 'invalid', 'Request not received in time'),
  /** 405 with `Allow`: a known path, the wrong method. */
  wrongMethod: (allowed: string) => d(405, 'MALFORMED_REQUEST', 'invalid', `Use ${allowed}`),
  /** 404 for a path that is no route. */
  noRoute: (method: string, path: string) => d(404, 'NOT_FOUND', 'invalid', `No route ${method} ${path.slice(0, 200)}`),
  /** 429: "RATE_LIMITED, status failed, reason Too many requests, retryable true, retry_after_seconds integer". */
  rateLimited: (retryAfterSeconds: number) => d(429, 'RATE_LIMITED', 'failed', 'Too many requests', { retryable: true, retryAfterSeconds }),
  /** 503: "UNAVAILABLE: retry later." It names no internal component. */
  unavailable: d(503, 'UNAVAILABLE', 'failed', 'Service temporarily unavailable', { retryable: true, retryAfterSeconds: 1 }),
  /** 503 on leads: a direct post names a lead answered PENDING that is not stored yet. */
  leadPending: d(503, 'UNAVAILABLE', 'failed', 'The lead named by svc_lead_id is still pending; retry shortly', {
    retryable: true,
    retryAfterSeconds: 2,
    field: 'svc_lead_id',
    error: 'lead_pending',
  }),
  /** 400 on search and leads: an `Idempotency-Key` header that cannot name a request (docs/idempotency.md). */
  idempotencyKeyInvalid: (reason: string) =>
    d(400, 'INVALID_FIELD', 'invalid', reason, { field: 'Idempotency-Key', error: 'idempotency_key_invalid' }),
  /** 400 on search and leads: the key named another request (a different body) within its window. */
  idempotencyKeyReused: d(400, 'INVALID_FIELD', 'invalid', 'Idempotency-Key was already used with a different request body', {
    field: 'Idempotency-Key',
    error: 'idempotency_key_reused',
  }),
  /** 500: "INTERNAL_ERROR: not retryable as is; the leads answer carries a request_id". */
  internalError: d(500, 'INTERNAL_ERROR', 'failed', 'Internal error'),
} as const;

/** The pre-check's 404 body when the account does not have it: "body is a plain object with error". */
export const DUPE_CHECK_NOT_AVAILABLE = Object.freeze({ http: 404, error: 'dupe_check_not_available' });
