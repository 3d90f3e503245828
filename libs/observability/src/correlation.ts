import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The log field every line written while handling a request or a message carries. */
export const CORRELATION_ID_FIELD = 'correlation_id';

/** Headers a caller may set to choose the id (the first well-formed one wins); the answer echoes it in X-Request-Id. */
export const CORRELATION_ID_HEADERS = ['x-request-id', 'x-correlation-id'] as const;

/** Letters, digits and `._:-`, 8 to 128 of them: enough for a UUID or a trace id, too narrow for an email or a sentence. */
const WELL_FORMED = /^[A-Za-z0-9._:-]{8,128}$/;

const current = new AsyncLocalStorage<string>();

export function isWellFormedCorrelationId(value: unknown): value is string {
  return typeof value === 'string' && WELL_FORMED.test(value);
}

/** A caller's X-Request-Id (or X-Correlation-Id) when it is well-formed; otherwise a new UUID. */
export function correlationIdFor(req: IncomingMessage): string {
  for (const header of CORRELATION_ID_HEADERS) {
    const given = req.headers[header];
    if (isWellFormedCorrelationId(given)) return given;
  }
  return randomUUID();
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
