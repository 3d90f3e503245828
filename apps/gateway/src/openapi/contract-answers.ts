import { applyDecorators, Type } from '@nestjs/common';
import { ApiBearerAuth, ApiDefaultResponse, ApiExtraModels, ApiResponse, ApiSecurity, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { DEFAULT_RATE_LIMITS, type ApiCode, type EndpointName } from '@lr/contracts';
import { DupeCheckNotAvailableSchema, ErrorEnvelopeSchema } from './answer-schemas';
import { PENDING, refusalTraits } from './catalog-codes';
import type { SchemaObject } from './lead-schemas';

/** The security schemes of the contract's Authentication section, as named in the document. */
export const BEARER_SCHEME = 'bearer';
export const API_KEY_SCHEME = 'api-key';
/** The tags of the document's operations: the contract's affiliate API, and the buyer API of schools (docs/returns.md). */
export const AFFILIATE_API_TAG = 'Affiliate API';
export const BUYER_API_TAG = 'Buyer API';

export type ContractOperation = 'search' | 'results' | 'leads' | 'lead-status' | 'dupe-check' | 'opt-outs' | 'returns';

/** One error status of an endpoint: the codes its envelope carries, and the contract's condition. */
export interface ContractError {
  codes: readonly ApiCode[];
  text: string;
}

/** The pre-check's 404: the contract's one plain body (`{ "error": … }`), not the envelope. */
export interface PlainError {
  plain: true;
  text: string;
}

const AUTH: ContractError = {
  codes: ['AUTH_REQUIRED', 'AUTH_INVALID'],
  text: '`AUTH_REQUIRED` (no key sent, reason `Missing API key`) or `AUTH_INVALID` (key unknown, revoked or expired, reason `Invalid API key`). Not retryable as is.',
};
const RATE_LIMITED: ContractError = {
  codes: ['RATE_LIMITED'],
  text: '`RATE_LIMITED`, status `failed`, reason `Too many requests`, `retryable` true, `retry_after_seconds`; header `Retry-After` in seconds. Limits are per key and per endpoint.',
};
const INTERNAL: ContractError = {
  codes: ['INTERNAL_ERROR'],
  text: '`INTERNAL_ERROR`, status `failed`: not retryable as is; the answer carries a `request_id`.',
};
const UNAVAILABLE: ContractError = {
  codes: ['UNAVAILABLE'],
  text: '`UNAVAILABLE`, status `failed`: a dependency is down or too slow; `retryable` true, retry after `Retry-After` seconds.',
};
const forbidden = (condition: string): ContractError => ({ codes: ['FORBIDDEN'], text: `\`FORBIDDEN\`: ${condition}.` });
const PAUSED = 'the key’s account is paused (`error` `affiliate_paused`)';
const SCHOOL_KEY = 'the key is a school’s, for the buyer API (`error` `key_not_permitted`)';

/**
 * The error statuses each endpoint answers, with their codes and condition, as
 * the contract's endpoint sections and Errors table list them
 * (affiliate-api.md). The lead-status read is an addition to the contract
 * (docs/submit.md) and answers like a poll. Statuses the contract does not name
 * for an endpoint are covered by the `default` answer below. Each status's
 * codes must be answers of the decision catalog with that HTTP status
 * (refusalTraits), or the document is not built.
 */
export const CONTRACT_ERRORS: Record<ContractOperation, Record<number, ContractError | PlainError>> = {
  search: {
    400: {
      codes: ['REQUIRED_FIELD_MISSING', 'INVALID_FIELD', 'NOT_FOUND', 'MALFORMED_REQUEST'],
      text: "`REQUIRED_FIELD_MISSING` or `INVALID_FIELD` (the field is named in `field` and `reason`; every problem under `errors`); `NOT_FOUND` when the campaign is not active or not the caller's; `MALFORMED_REQUEST` for a body that is empty, not JSON or not a JSON object.",
    },
    401: AUTH,
    403: forbidden(
      `\`svc_affiliate_id\` is not the key's affiliate (\`error\` \`affiliate_mismatch\`), the lead was already submitted, ${PAUSED}, or ${SCHOOL_KEY}`,
    ),
    429: RATE_LIMITED,
    500: INTERNAL,
    503: UNAVAILABLE,
  },
  results: {
    401: AUTH,
    403: forbidden(`campaign or offer not the caller's (\`error\` \`campaign_not_owned\`), ${PAUSED}, or ${SCHOOL_KEY}`),
    404: { codes: ['NOT_FOUND'], text: '`NOT_FOUND`: no search with that id belongs to the key.' },
    429: RATE_LIMITED,
    500: INTERNAL,
    503: UNAVAILABLE,
  },
  leads: {
    400: {
      codes: ['REQUIRED_FIELD_MISSING', 'INVALID_FIELD', 'MALFORMED_REQUEST'],
      text: '`REQUIRED_FIELD_MISSING` or `INVALID_FIELD` (the field is named; e.g. a direct post without `lead`, or to a partner offer); `MALFORMED_REQUEST` for a body that is empty, not JSON or not a JSON object.',
    },
    401: AUTH,
    403: forbidden(
      `campaign or offer not the caller's, affiliate id not the key's (\`error\` \`affiliate_mismatch\`), campaign not one of the result's (\`error\` \`result_campaign_mismatch\`), the lead was already submitted, ${PAUSED}, or ${SCHOOL_KEY}`,
    ),
    404: {
      codes: ['NOT_FOUND'],
      text: '`NOT_FOUND`: result, lead or offer unknown to the key (`error` `search_result_not_found` for another affiliate’s result).',
    },
    409: { codes: ['MALFORMED_REQUEST'], text: '`MALFORMED_REQUEST`: `search_lead_id` missing on a result submit.' },
    429: RATE_LIMITED,
    500: INTERNAL,
    503: {
      codes: UNAVAILABLE.codes,
      text: `${UNAVAILABLE.text} Also on a direct post whose \`svc_lead_id\` names a lead still pending (\`error\` \`lead_pending\`).`,
    },
  },
  'lead-status': {
    401: AUTH,
    403: forbidden(`${PAUSED}, or ${SCHOOL_KEY}`),
    404: { codes: ['NOT_FOUND'], text: '`NOT_FOUND`: no lead with that id belongs to the key.' },
    429: { codes: RATE_LIMITED.codes, text: `${RATE_LIMITED.text} Counts toward the leads endpoint's budget.` },
    500: INTERNAL,
    503: UNAVAILABLE,
  },
  'dupe-check': {
    400: {
      codes: ['MALFORMED_REQUEST', 'INVALID_FIELD'],
      text: '`MALFORMED_REQUEST`: no usable lead field (or a body that is empty, not JSON or not a JSON object); `INVALID_FIELD`: `offer_id` not a UUID (or a `hashed` value not a SHA-256 hex).',
    },
    401: AUTH,
    403: forbidden(`the offer is not the caller's, or the key is not permitted (${PAUSED}; ${SCHOOL_KEY})`),
    404: { plain: true, text: 'The pre-check is not available on the account. The body is a plain object with `error`, not the envelope.' },
    405: { codes: ['MALFORMED_REQUEST'], text: '`MALFORMED_REQUEST`: use POST (header `Allow: POST`).' },
    413: { codes: ['MALFORMED_REQUEST'], text: '`MALFORMED_REQUEST`: body over 16 KB.' },
    429: RATE_LIMITED,
    503: UNAVAILABLE,
  },
  'opt-outs': {
    400: {
      codes: ['MALFORMED_REQUEST', 'INVALID_FIELD'],
      text: '`MALFORMED_REQUEST`: no usable email or phone (or a body that is empty, not JSON or not a JSON object); `INVALID_FIELD`: `hashed` not an object, or a `hashed` value not a SHA-256 hex.',
    },
    401: AUTH,
    403: forbidden(`the key is not permitted (${PAUSED}; ${SCHOOL_KEY})`),
    405: { codes: ['MALFORMED_REQUEST'], text: '`MALFORMED_REQUEST`: use POST (header `Allow: POST`).' },
    413: { codes: ['MALFORMED_REQUEST'], text: '`MALFORMED_REQUEST`: body over 16 KB.' },
    429: RATE_LIMITED,
    503: UNAVAILABLE,
  },
  returns: {
    400: {
      codes: ['REQUIRED_FIELD_MISSING', 'INVALID_FIELD', 'MALFORMED_REQUEST'],
      text: "`REQUIRED_FIELD_MISSING` or `INVALID_FIELD` (the field is named in `field` and `reason`: `svc_lead_id`, `reason`, `note`; a reason code that is not one of the offer's names `reason`); `MALFORMED_REQUEST` for a body that is empty, not JSON or not a JSON object.",
    },
    401: AUTH,
    403: forbidden('the key is an affiliate’s, not a school’s (`error` `key_not_permitted`)'),
    404: {
      codes: ['NOT_FOUND'],
      text: '`NOT_FOUND`: a lead the school did not buy (never received, another school’s, not accepted): no hint whose it is.',
    },
    409: {
      codes: ['ALREADY_RETURNED', 'RETURN_WINDOW_CLOSED'],
      text: '`ALREADY_RETURNED`: the lead was returned before (a return has one effect); `RETURN_WINDOW_CLOSED`: the offer’s return window has passed, or the offer takes no returns (`error` `no_return_policy`).',
    },
    413: { codes: ['MALFORMED_REQUEST'], text: '`MALFORMED_REQUEST`: body over 16 KB.' },
    429: { codes: RATE_LIMITED.codes, text: `${RATE_LIMITED.text} The buyer API's own budget (\`returns\`).` },
    500: INTERNAL,
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

const HAS_BODY: Record<ContractOperation, boolean> = {
  search: true,
  results: false,
  leads: true,
  'lead-status': false,
  'dupe-check': true,
  'opt-outs': true,
  returns: true,
};

const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } };

/** The budget each operation spends: the lead-status read counts toward the leads endpoint's (the contract's Limits). */
const BUDGET_OF: Record<ContractOperation, EndpointName> = {
  search: 'search',
  results: 'results',
  leads: 'leads',
  'lead-status': 'leads',
  'dupe-check': 'dupe-check',
  'opt-outs': 'opt-outs',
  returns: 'returns',
};

/** Headers of an answered call (RateLimitGuard), the example being the endpoint's own default budget. */
function rateLimitHeaders(op: ContractOperation) {
  const { perMinute, burst } = DEFAULT_RATE_LIMITS[BUDGET_OF[op]];
  return {
    'X-RateLimit-Limit': {
      description: `The key's budget for this endpoint: \`${perMinute}/min; burst=${burst}\` by default (a key may carry its own).`,
      schema: { type: 'string' },
    },
    'X-RateLimit-Remaining': { description: 'Whole calls left in the budget now.', schema: { type: 'integer' } },
  };
}

export interface SuccessAnswers {
  /** The schema of the success body. */
  type: Type<unknown>;
  /** The 200 answer. */
  ok: string;
  /** The 202 answer, where the endpoint has one: always `PENDING`. */
  accepted?: string;
}

/** `base`, with some of its properties narrowed (allOf: the answer keeps its schema's name, and a client its type). */
function narrowed(base: Type<unknown>, required: string[], properties: Record<string, SchemaObject>): SchemaObject {
  return { allOf: [{ $ref: getSchemaPath(base) }, { type: 'object', required, properties }] };
}

/**
 * The error envelope of one status: its codes, and what the catalog's answers
 * with that status and those codes share (`status`, `retryable`, a
 * `retry_after_seconds` on 429 and 503).
 */
function errorSchema(http: number, codes: readonly ApiCode[]): SchemaObject {
  const traits = refusalTraits(http, codes);
  const required = [
    'code',
    'status',
    ...(traits.retryable === undefined ? [] : ['retryable']),
    ...(traits.retryAfter ? ['retry_after_seconds'] : []),
  ];
  return narrowed(ErrorEnvelopeSchema, required, {
    code: { type: 'string', enum: [...codes] },
    status: { type: 'string', enum: traits.statuses },
    ...(traits.retryable === undefined ? {} : { retryable: { type: 'boolean', enum: [traits.retryable] } }),
    ...(traits.retryAfter ? { retry_after_seconds: { type: 'integer' } } : {}),
  });
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
  const headers = rateLimitHeaders(op);
  const pending = (text: string) =>
    ApiResponse({
      status: 202,
      description: text,
      schema: narrowed(success.type, ['code', 'status'], {
        code: { type: 'string', enum: [PENDING.code] },
        status: { type: 'string', enum: [PENDING.status] },
      }),
      headers,
    });
  return applyDecorators(
    ApiExtraModels(success.type, ErrorEnvelopeSchema),
    ApiResponse({ status: 200, type: success.type, description: success.ok, headers }),
    ...(success.accepted ? [pending(success.accepted)] : []),
    ...Object.entries(listed).map(([status, error]) =>
      ApiResponse({
        status: Number(status),
        description: error.text,
        ...('plain' in error ? { type: DupeCheckNotAvailableSchema } : { schema: errorSchema(Number(status), error.codes) }),
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
  return applyDecorators(ApiTags(AFFILIATE_API_TAG), ApiBearerAuth(BEARER_SCHEME), ApiSecurity(API_KEY_SCHEME));
}

/** A buyer API controller (docs/returns.md): tagged, and secured by a school's API key in either header, as the affiliate API. */
export function BuyerApi(): ClassDecorator {
  return applyDecorators(ApiTags(BUYER_API_TAG), ApiBearerAuth(BEARER_SCHEME), ApiSecurity(API_KEY_SCHEME));
}
