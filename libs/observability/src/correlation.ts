import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The log field every line written while handling a request or a message carries. */
export const CORRELATION_ID_FIELD = 'correlation_id';

/** The log field that keeps a caller's own request id (never the correlation id: see newCorrelationId). */
export const CLIENT_REQUEST_ID_FIELD = 'client_request_id';

/** Headers in which a caller may name its own request id (the first well-formed one is logged as client_request_id). */
export const CLIENT_REQUEST_ID_HEADERS = ['x-request-id', 'x-correlation-id'] as const;

/** Letters, digits and `._:-`, 8 to 128 of them: enough for a UUID or a trace id, too narrow for an email or a sentence. */
const WELL_FORMED = /^[A-Za-z0-9._:-]{8,128}$/;

const current = new AsyncLocalStorage<string>();

export function isWellFormedCorrelationId(value: unknown): value is string {
  return typeof value === 'string' && WELL_FORMED.test(value);
}

/**
 * The correlation id of a request: always a new UUID made here. A caller's
 * X-Request-Id never becomes it: two callers could otherwise send the same
 * one and share a story across every app's logs and messages.
 */
export function newCorrelationId(): string {
  return randomUUID();
}

/** The caller's own request id (X-Request-Id, else X-Correlation-Id) when well-formed, to log beside the correlation id. */
export function clientRequestIdOf(req: IncomingMessage): string | undefined {
  for (const header of CLIENT_REQUEST_ID_HEADERS) {
    const given = req.headers[header];
    if (isWellFormedCorrelationId(given)) return given;
  }
  return undefined;
}

/**
 * Runs `fn` as the handling of one request or message: every log line written
 * inside it (the pino mixin reads this) and every message it publishes (the
 * publisher's default correlationId) carry `id`. Timers and promises started
 * inside keep it (AsyncLocalStorage).
 */
export function withCorrelationId<T>(id: string, fn: () => T): T {
  return current.run(id, fn);
}

/** The correlation id of the request or message being handled, if any. */
export function currentCorrelationId(): string | undefined {
  return current.getStore();
}

/** pino `mixin`: adds the current correlation id to a line (a field the line sets itself wins). */
export function correlationLogFields(): Record<string, string> {
  const id = current.getStore();
  return id === undefined ? {} : { [CORRELATION_ID_FIELD]: id };
}
