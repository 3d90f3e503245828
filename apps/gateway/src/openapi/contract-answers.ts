import { applyDecorators, Type } from '@nestjs/common';
import { ApiBearerAuth, ApiDefaultResponse, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { DupeCheckNotAvailableSchema, ErrorEnvelopeSchema } from './answer-schemas';

/** The security schemes of the contract's Authentication section, as named in the document. */
export const BEARER_SCHEME = 'bearer';
export const API_KEY_SCHEME = 'api-key';

export type ContractOperation = 'search' | 'results' | 'leads' | 'lead-status' | 'dupe-check';

const AUTH = '`AUTH_REQUIRED` (no key sent, reason `Missing API key`) or `AUTH_INVALID` (key unknown, revoked or expired, reason `Invalid API key`). Not retryable as is.';
const RATE_LIMITED =
  '`RATE_LIMITED`, status `failed`, reason `Too many requests`, `retryable` true, `retry_after_seconds`; header `Retry-After` in seconds. Limits are per key and per endpoint.';
const INTERNAL = '`INTERNAL_ERROR`, status `failed`: not retryable as is; the answer carries a `request_id`.';
const UNAVAILABLE = '`UNAVAILABLE`, status `failed`: a dependency is down or too slow; `retryable` true, retry after `Retry-After` seconds.';
const PAUSED = 'the key’s account is paused (`error` `affiliate_paused`)';

/**
 * The error statuses each endpoint answers, with the code and condition, as
 * the contract's endpoint sections and Errors table list them
 * (affiliate-api.md). The lead-status read is an addition to the contract
 * (docs/submit.md) and answers like a poll. Statuses the contract does not name
 * for an endpoint are covered by the `default` answer below.
 */
export const CONTRACT_ERRORS: Record<ContractOperation, Record<number, string>> = {
  search: {
    400: "`REQUIRED_FIELD_MISSING` or `INVALID_FIELD` (the field is named in `field` and `reason`; every problem under `errors`); `NOT_FOUND` when the campaign is not active or not the caller's; `MALFORMED_REQUEST` for a body that is empty, not JSON or not a JSON object.",
    401: AUTH,
    403: `\`FORBIDDEN\`: \`svc_affiliate_id\` is not the key's affiliate, the lead was already submitted, or ${PAUSED}.`,
    429: RATE_LIMITED,
    500: INTERNAL,
    503: UNAVAILABLE,
  },
  results: {
    401: AUTH,
    403: `\`FORBIDDEN\`: campaign or offer not the caller's, or ${PAUSED}.`,
    404: '`NOT_FOUND`: no search with that id belongs to the key.',
    429: RATE_LIMITED,
    500: INTERNAL,
    503: UNAVAILABLE,
  },
  leads: {
    400: '`REQUIRED_FIELD_MISSING` or `INVALID_FIELD` (the field is named; e.g. a direct post without `lead`, or to a partner offer); `MALFORMED_REQUEST` for a body that is empty, not JSON or not a JSON object.',
    401: AUTH,
    403: `\`FORBIDDEN\`: campaign or offer not the caller's, affiliate id not the key's, campaign not one of the result's (\`error\` \`result_campaign_mismatch\`), the lead was already submitted, or ${PAUSED}.`,
    404: '`NOT_FOUND`: result, lead or offer unknown to the key (`error` `search_result_not_found` for another affiliate’s result).',
    409: '`MALFORMED_REQUEST`: `search_lead_id` missing on a result submit.',
    429: RATE_LIMITED,
    500: INTERNAL,
    503: UNAVAILABLE,
  },
  'lead-status': {
    401: AUTH,
    403: `\`FORBIDDEN\`: ${PAUSED}.`,
    404: '`NOT_FOUND`: no lead with that id belongs to the key.',
    429: `${RATE_LIMITED} Counts toward the leads endpoint's budget.`,
    500: INTERNAL,
    503: UNAVAILABLE,
  },
  'dupe-check': {
    400: '`MALFORMED_REQUEST`: no usable lead field (or a body that is empty, not JSON or not a JSON object); `INVALID_FIELD`: `offer_id` not a UUID (or a `hashed` value not a SHA-256 hex).',
    401: AUTH,
    403: `\`FORBIDDEN\`: the offer is not the caller's, or the key is not permitted (${PAUSED}).`,
    404: 'The pre-check is not available on the account. The body is a plain object with `error`, not the envelope.',
    405: '`MALFORMED_REQUEST`: use POST (header `Allow: POST`).',
    413: '`MALFORMED_REQUEST`: body over 16 KB.',
    429: RATE_LIMITED,
    503: UNAVAILABLE,
  },
};

/** Refusals of the front door on any endpoint that the contract does not name per endpoint (docs/decisions.md). */
const FRONT_DOOR: Array<[number, string, 'any' | 'body']> = [
  [405, 'another method on this path: `MALFORMED_REQUEST` with `Allow`', 'any'],
  [413, 'body over 256 KB: `MALFORMED_REQUEST`', 'body'],
  [415, '`Content-Type` not `application/json`: `MALFORMED_REQUEST`', 'body'],
  [500, '`INTERNAL_ERROR` with a `request_id`', 'any'],
];

const HAS_BODY: Record<ContractOperation, boolean> = { search: true, results: false, leads: true, 'lead-status': false, 'dupe-check': true };

const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } };

/** Headers of an answered call (RateLimitGuard). */
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: "The key's budget for this endpoint, e.g. `60/min; burst=10`.", schema: { type: 'string' } },
  'X-RateLimit-Remaining': { description: 'Whole calls left in the budget now.', schema: { type: 'integer' } },
};

export interface SuccessAnswers {
  /** The schema of the success body. */
  type: Type<unknown>;
  /** The 200 answer. */
  ok: string;
  /** The 202 answer, where the endpoint has one. */
  accepted?: string;
}

/**
 * Every answer of one endpoint: its success (200, and 202 where given), the
 * contract's error statuses each with its schema, and a `default` for the
 * front door's other refusals.
 */
export function ContractAnswers(op: ContractOperation, success: SuccessAnswers): MethodDecorator {
  const listed = CONTRACT_ERRORS[op];
  const others = FRONT_DOOR.filter(([status, , when]) => !(status in listed) && (when === 'any' || HAS_BODY[op])).map(
    ([status, text]) => `${status} (${text})`,
  );
  return applyDecorators(
    ApiResponse({ status: 200, type: success.type, description: success.ok, headers: RATE_LIMIT_HEADERS }),
    ...(success.accepted ? [ApiResponse({ status: 202, type: success.type, description: success.accepted, headers: RATE_LIMIT_HEADERS })] : []),
    ...Object.entries(listed).map(([status, description]) =>
      ApiResponse({
        status: Number(status),
        description,
        type: op === 'dupe-check' && status === '404' ? DupeCheckNotAvailableSchema : ErrorEnvelopeSchema,
        ...(status === '429' || status === '503' ? { headers: RETRY_AFTER } : {}),
      }),
    ),
    ApiDefaultResponse({
      description: `Refusals not named by the contract for this endpoint, in the same envelope: ${others.join('; ')}.`,
      type: ErrorEnvelopeSchema,
    }),
  );
}

/** An affiliate API controller: tagged, and secured by the API key in either header (contract: Authentication). */
export function AffiliateApi(): ClassDecorator {
  return applyDecorators(ApiTags('Affiliate API'), ApiBearerAuth(BEARER_SCHEME), ApiSecurity(API_KEY_SCHEME));
}
