/**
 * When to send a call again (affiliate-api.md, "Errors" and "Limits"): only
 * after a 429 (`RATE_LIMITED`: wait `Retry-After` seconds) or a 503 that says
 * `retryable: true` (`UNAVAILABLE`: back off, never sooner than `Retry-After`).
 * Nothing else is sent again: not a decision (a 200 or 202 submit answer,
 * `PENDING` included: it is not final, but the submit was taken), not any
 * other refusal.
 */
export interface RetryPolicy {
  /** Calls sent again at most, after the first (default 3). */
  retries: number;
  /** The first back-off after a retryable 503, doubled for each further one (default 500 ms). */
  backoffMs: number;
  /** The longest back-off (default 8 s). */
  maxBackoffMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { retries: 3, backoffMs: 500, maxBackoffMs: 8000 };

/** What the policy reads of an answer. */
export interface AnswerSeen {
  status: number;
  body: unknown;
  headers: Headers;
}

/** `Retry-After` in milliseconds: delay-seconds, or an HTTP date. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const field = (body: unknown, name: string): unknown =>
  body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;

/**
 * How long to wait before sending the call again after this answer, the
 * `attempt`-th retry (1 for the first); undefined: do not send it again.
 */
export function retryDelayMs(answer: AnswerSeen, attempt: number, policy: RetryPolicy = DEFAULT_RETRY_POLICY): number | undefined {
  if (attempt > policy.retries) return undefined;
  const backoff = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (attempt - 1));
  const retryAfterSeconds = field(answer.body, 'retry_after_seconds');
  const serverSays = retryAfterMs(answer.headers) ?? (typeof retryAfterSeconds === 'number' ? retryAfterSeconds * 1000 : undefined);
  if (answer.status === 429) return serverSays ?? backoff;
  if (answer.status === 503 && field(answer.body, 'retryable') === true) return Math.max(serverSays ?? 0, backoff);
  return undefined;
}

/**
 * The back-off before sending a keyed call (one with an `Idempotency-Key`)
 * again after a network failure, the `attempt`-th retry; undefined: give up.
 * Only keyed calls: the service answers their retry with the first answer.
 */
export function networkRetryDelayMs(attempt: number, policy: RetryPolicy = DEFAULT_RETRY_POLICY): number | undefined {
  if (attempt > policy.retries) return undefined;
  return Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (attempt - 1));
}
