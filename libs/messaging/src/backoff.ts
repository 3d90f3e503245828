/**
 * Back-off before the retry that follows failed try number `failedAttempt`
 * (1-based): AMQP_RETRY_DELAYS_MS[failedAttempt - 1], the last value repeating.
 */
export function retryDelayMs(failedAttempt: number, delaysMs: readonly number[]): number {
  if (delaysMs.length === 0) throw new Error('retry delays must not be empty');
  if (!Number.isInteger(failedAttempt) || failedAttempt < 1) throw new Error(`attempt must be a positive integer, got ${failedAttempt}`);
  return delaysMs[Math.min(failedAttempt, delaysMs.length) - 1];
}

/** The distinct delays, ascending: one wait queue per value (see topology.ts). */
export function delayLevels(delaysMs: readonly number[]): number[] {
  for (const d of delaysMs) {
    if (!Number.isInteger(d) || d < 0) throw new Error(`retry delay must be a non-negative integer, got ${d}`);
  }
  return [...new Set(delaysMs)].sort((a, b) => a - b);
}
