import { retryDelayMs } from './backoff';
import { PermanentError } from './errors';

export type FailureDecision =
  { action: 'retry'; nextAttempt: number; delayMs: number; error: string } | { action: 'dead-letter'; reason: string };

/**
 * What happens to a message whose handler failed on try `attempt`: another try
 * after the back-off, or the dead-letter queue (a PermanentError, or the last try).
 * Pure, so the rule is unit-tested apart from the broker.
 */
export function decideOnFailure(error: unknown, attempt: number, maxAttempts: number, delaysMs: readonly number[]): FailureDecision {
  const message = errorMessage(error);
  if (isPermanent(error)) return { action: 'dead-letter', reason: message };
  if (attempt >= maxAttempts) return { action: 'dead-letter', reason: message };
  return { action: 'retry', nextAttempt: attempt + 1, delayMs: retryDelayMs(attempt, delaysMs), error: message };
}

function isPermanent(error: unknown): boolean {
  // By class, and by name for errors that crossed a realm or a Nest exception filter as a plain object.
  return (
    error instanceof PermanentError ||
    (typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'PermanentError')
  );
}

/** A readable one-line reason from whatever a handler threw (Error, string, Nest's `{ status, message }`). */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`;
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
