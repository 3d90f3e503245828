import type { ApiCode, OutcomeStatus } from '@lr/domain';

/**
 * The contract's answer vocabulary is the domain's (libs/domain vocabulary/answers.ts):
 * every error crosses process boundaries as one of its stable codes. Named here
 * too, for the code that reads it beside the envelope.
 */
export { API_CODES, MAX_ACCEPTED_SUBMISSIONS, OUTCOME_STATUSES } from '@lr/domain';
export type { ApiCode, OutcomeStatus } from '@lr/domain';

/** The fields every answer carries, plus the optional error fields of the contract's Errors section. */
export interface ApiEnvelope {
  code: ApiCode;
  status: OutcomeStatus;
  reason: string;
  success?: boolean;
  retryable?: boolean;
  retry_after_seconds?: number;
  error?: string;
  request_id?: string;
  [extra: string]: unknown;
}

/**
 * The endpoints with a rate-limit budget, named as the operator CLI names them
 * (`--limit search=60/10`): the contract's four and the additive opt-out
 * intake, called with an affiliate's key, and the buyer API's `returns`,
 * called with a school's key (docs/returns.md).
 */
export const ENDPOINTS = ['search', 'results', 'leads', 'dupe-check', 'opt-outs', 'returns'] as const;
export type EndpointName = (typeof ENDPOINTS)[number];

export interface RateLimit {
  perMinute: number;
  burst: number;
}

/** The contract's Limits table, and the buyer API's. A key may override any of these (api_keys.limits). */
export const DEFAULT_RATE_LIMITS: Record<EndpointName, RateLimit> = {
  search: { perMinute: 60, burst: 10 },
  results: { perMinute: 600, burst: 600 },
  leads: { perMinute: 120, burst: 120 },
  'dupe-check': { perMinute: 30, burst: 10 },
  // Not in the contract's table (an additive endpoint): a consumer's "stop" arrives one at a time. Any key may opt out any
  // person, so the default is low (docs/opt-outs.md); an affiliate that replays a batch gets `keys issue --limit opt-outs=…`.
  'opt-outs': { perMinute: 30, burst: 10 },
  returns: { perMinute: 60, burst: 20 },
};

/** The endpoints each kind of key may call: an affiliate's the contract's and the opt-out intake, a school's the buyer API's. */
export const AFFILIATE_ENDPOINTS: readonly EndpointName[] = ['search', 'results', 'leads', 'dupe-check', 'opt-outs'];
export const BUYER_ENDPOINTS: readonly EndpointName[] = ['returns'];
