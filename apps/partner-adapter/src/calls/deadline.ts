import { PartnerTimeoutError } from '../adapters/partner-errors';

/**
 * How long a partner call may take: the partner's own timeout, cut to what is
 * left of the search (the call never outlives closesAt). Zero or less: the
 * search is already closed and the partner is not called.
 */
export function callDeadlineMs(timeoutMs: number, closesAt: string, now: number): number {
  return callDeadlines(closesAt, now)(timeoutMs);
}

/**
 * callDeadlineMs for every partner of one search, measured from one moment:
 * closesAt is read once, so an unreadable one throws (RangeError) before any
 * partner's deadline is known, let alone any partner called.
 */
export function callDeadlines(closesAt: string, now: number): (timeoutMs: number) => number {
  const closes = Date.parse(closesAt);
  if (Number.isNaN(closes)) throw new RangeError(`closesAt is not a time: ${JSON.stringify(closesAt)}`);
  return (timeoutMs) => Math.min(timeoutMs, closes - now);
}

/**
 * Runs `call` with a signal that aborts after deadlineMs, and rejects with
 * PartnerTimeoutError at that moment even if `call` ignores its signal: a
 * misbehaving adapter cannot hold a search past its deadline.
 */
export async function withDeadline<T>(deadlineMs: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        const error = new PartnerTimeoutError(deadlineMs);
        controller.abort(error);
        reject(error);
      },
      Math.max(0, deadlineMs),
    );
  });
  try {
    return await Promise.race([call(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}
