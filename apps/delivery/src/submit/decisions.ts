import type { ApiCode, OutcomeStatus } from '@lr/contracts';

/** How a buyer's (school's or partner's) system took a lead, before translation. */
export type BuyerOutcome = 'accepted' | 'duplicate' | 'rejected' | 'timeout' | 'error' | 'interrupted';

/**
 * The standardized answer for each buyer outcome (LEAD-FIELDS.md): never the
 * buyer's own text, which is kept for operators in delivery_attempts.detail.
 * A reason ending in ` - Client` means the buyer's system decided, also when
 * it decided by not answering: the lead is not sent twice (at most once), so
 * a buyer that did not answer in time has not bought it.
 */
export function buyerDecision(outcome: BuyerOutcome): { status: OutcomeStatus; code: ApiCode; reason: string } {
  switch (outcome) {
    case 'accepted':
      return { status: 'accepted', code: 'ACCEPTED', reason: 'Lead accepted' };
    case 'duplicate':
      return { status: 'rejected', code: 'DUPLICATE', reason: 'Duplicate - Client' };
    case 'rejected':
      return { status: 'rejected', code: 'BUYER_REJECTED', reason: 'Rejected - Client' };
    case 'timeout':
    case 'interrupted':
      return { status: 'rejected', code: 'BUYER_REJECTED', reason: 'No response - Client' };
    case 'error':
      return { status: 'rejected', code: 'BUYER_REJECTED', reason: 'Error - Client' };
  }
}
