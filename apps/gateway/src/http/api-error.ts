import { ApiCode, OutcomeStatus } from '@lr/contracts';

/**
 * An answer that is not a success, thrown anywhere on the request path and
 * turned into the contract's envelope by ApiExceptionFilter, the one place that
 * maps codes to HTTP.
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

  static authRequired() {
    return new ApiError(401, 'AUTH_REQUIRED', 'Missing API key');
  }
  static authInvalid() {
    return new ApiError(401, 'AUTH_INVALID', 'Invalid API key');
  }
  static forbidden(reason = 'Not permitted', extra: Record<string, unknown> = {}) {
    return new ApiError(403, 'FORBIDDEN', reason, extra);
  }
  static requiredFieldMissing(field: string, reason = `Missing field ${field}`) {
    return new ApiError(400, 'REQUIRED_FIELD_MISSING', reason, { field });
  }
  static invalidField(field: string, reason: string, extra: Record<string, unknown> = {}) {
    return new ApiError(400, 'INVALID_FIELD', reason, { field, ...extra });
  }
  static notFound(httpStatus: 400 | 404, reason: string, extra: Record<string, unknown> = {}) {
    return new ApiError(httpStatus, 'NOT_FOUND', reason, extra);
  }
  static malformed(httpStatus: number, reason: string, headers: Record<string, string> = {}) {
    return new ApiError(httpStatus, 'MALFORMED_REQUEST', reason, {}, 'invalid', headers);
  }
  static rateLimited(retryAfterSeconds: number) {
    return new ApiError(
      429,
      'RATE_LIMITED',
      'Too many requests',
      { retryable: true, retry_after_seconds: retryAfterSeconds },
      'failed',
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }
  /** The one 503 answer: it names no internal component (the log does: see DependencyFailure). */
  static unavailable() {
    return new ApiError(
      503,
      'UNAVAILABLE',
      'Service temporarily unavailable',
      { retryable: true, retry_after_seconds: 1 },
      'failed',
      { 'Retry-After': '1' },
    );
  }
}
