import type { PartnerCallOutcome } from '@lr/contracts';
import { PartnerCallError, PartnerCircuitOpenError, PartnerTimeoutError } from '../adapters/partner-errors';

/** Operator-facing details stay short. */
const MAX_DETAIL = 500;

export interface CallFailure {
  outcome: Exclude<PartnerCallOutcome, 'answered' | 'expired'>;
  detail: string;
  /** Not a partner failure but ours (a bug): worth an error log with the stack. */
  unexpected: boolean;
}

/** How a failed partner call is reported: timeout, circuit_open, or error with what went wrong. */
export function describeCallFailure(error: unknown): CallFailure {
  const detail = (text: string) => text.slice(0, MAX_DETAIL);
  if (error instanceof PartnerTimeoutError) return { outcome: 'timeout', detail: detail(error.message), unexpected: false };
  if (error instanceof PartnerCircuitOpenError) return { outcome: 'circuit_open', detail: detail(error.message), unexpected: false };
  if (error instanceof PartnerCallError) return { outcome: 'error', detail: detail(`${error.code}: ${error.message}`), unexpected: false };
  return { outcome: 'error', detail: detail(`unexpected: ${(error as Error)?.message ?? String(error)}`), unexpected: true };
}
