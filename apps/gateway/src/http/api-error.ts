import { ApiCode, OutcomeStatus } from '@lr/contracts';
import { Decision, REFUSAL } from '@lr/domain';

/**
 * An answer that is not a success, thrown anywhere on the request path and
 * turned into the contract's envelope by ApiExceptionFilter. Every one is
 * built from an entry of the decision catalog (libs/domain decisions), which
 * holds each code, status, reason and HTTP status once.
 */
export class ApiError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: ApiCode,
    readonly reason: string,
    readonly extra: Record<string, unknown> = {},
    readonly status: OutcomeStatus = 'invalid',
    readonly headers: Record<string, string> = {},
  ) {
    super(reason);
  }

  /** The catalog's answer, with the fields it names (`error`, `field`, `retryable`, `retry_after_seconds`) and `Retry-After`. */
  static of(d: Decision, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): ApiError {
    const fields: Record<string, unknown> = {
      ...(d.retryable ? { retryable: true } : {}),
      ...(d.retryAfterSeconds !== undefined ? { retry_after_seconds: d.retryAfterSeconds } : {}),
      ...(d.field !== undefined ? { field: d.field } : {}),
      ...(d.error !== undefined ? { error: d.error } : {}),
      ...extra,
    };
    const retryAfter: Record<string, string> = d.retryAfterSeconds !== undefined ? { 'Retry-After': String(d.retryAfterSeconds) } : {};
    return new ApiError(d.http, d.code, d.reason, fields, d.status, { ...retryAfter, ...headers });
  }

  static authRequired() {
    return ApiError.of(REFUSAL.authRequired);
  }
  static authInvalid() {
    return ApiError.of(REFUSAL.authInvalid);
  }
  static forbidden(d: Decision = REFUSAL.forbidden) {
    return ApiError.of(d);
  }
  static malformed(d: Decision, headers: Record<string, string> = {}) {
    return ApiError.of(d, {}, headers);
  }
  static rateLimited(retryAfterSeconds: number) {
    return ApiError.of(REFUSAL.rateLimited(retryAfterSeconds));
  }
  /** The one 503 answer: it names no internal component (the log does: see DependencyFailure). */
  static unavailable() {
    return ApiError.of(REFUSAL.unavailable);
  }
}
