import { randomBytes } from 'node:crypto';
import type { Answer } from './idempotency-store';
import type { Outcome } from './sandbox-params';

/** What a school system typically says when it turns a lead down without giving a reason. */
export const DEFAULT_REJECT_REASON = 'Applicant does not meet the admission requirements for this program';
export const DUPLICATE_REASON = 'Lead already exists';

/**
 * The answer of a school system (or a partner's submit) for an outcome that
 * answers at all. The reason is the system's own text, passed through as is:
 * translating it is the delivery service's job, not the sandbox's.
 */
export function leadAnswer(outcome: Exclude<Outcome, 'timeout'>, name: string, reason?: string): Answer {
  switch (outcome) {
    case 'accept':
      return { status: 200, body: { result: 'accepted', id: `${name}-${randomBytes(6).toString('hex')}` } };
    case 'reject':
      return { status: 200, body: { result: 'rejected', reason: reason ?? DEFAULT_REJECT_REASON } };
    case 'duplicate':
      return { status: 200, body: { result: 'duplicate', reason: DUPLICATE_REASON } };
    case 'error':
      return { status: 500, body: { error: 'Internal Server Error' } };
  }
}

/** Processed answers are remembered for their Idempotency-Key; a 500 means nothing was processed. */
export function isProcessed(outcome: Outcome): boolean {
  return outcome === 'accept' || outcome === 'reject' || outcome === 'duplicate';
}
