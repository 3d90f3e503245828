import type { OptOutSource } from './opt-outs';

/**
 * Reversing an opt-out (docs/opt-outs.md, "Reversing opt-outs"). Any
 * affiliate may record an opt-out of any person, so an operator can undo one
 * that was not the consumer's wish (a competitor suppressing another
 * affiliate's consumers). What a reversal does, in one transaction per batch:
 *
 * 1. The opt-out is marked reversed: who, when, why. A reversed opt-out is
 *    never reversed again (idempotent) and holds nothing.
 * 2. Each suppression key it held passes to the earliest other opt-out of the
 *    same key that is not reversed and was recorded after the key was last
 *    lifted (that one still holds it: the person stays suppressed); with none,
 *    the key is lifted. Both are written to the suppression audit with the
 *    reversal's actor and reason.
 * 3. Each of its revocation notices the buyer has not acknowledged passes to
 *    the opt-out that now suppresses the lead's email or phone, if any (due
 *    when that one's are); otherwise it is cancelled: never sent, or never
 *    sent again after a send already under way. Notices acknowledged stay
 *    as they are: a buyer is never told anything twice, nor told to forget.
 * 4. A later opt-out of the same person takes a cancelled notice the buyer
 *    never acknowledged back, with its id (so a buyer de-duplicating on it
 *    sees one notice); a lead whose buyer acknowledged a notice gets no other.
 */

/** Who may have an opt-out reversed: an affiliate's or an operator's. A deletion request's is the consumer's own legal request: it stays. */
export const REVERSIBLE_SOURCES: readonly OptOutSource[] = ['affiliate', 'operator'];

export const REVERSAL_REASON_MAX_LENGTH = 500;

/** Why an opt-out cannot be reversed now, or null when it can. */
export type ReversalRefusal = 'unknown' | 'already_reversed' | 'not_reversible';

export function reversalRefusal(optOut: { source: OptOutSource; reversedAt: Date | null } | undefined): ReversalRefusal | null {
  if (!optOut) return 'unknown';
  if (optOut.reversedAt !== null) return 'already_reversed';
  if (!REVERSIBLE_SOURCES.includes(optOut.source)) return 'not_reversible';
  return null;
}

/** A reversal's reason is kept in the audit: 1 to 500 characters, not blank. The problem in words, or null. */
export function reversalReasonProblem(reason: string): string | null {
  return reason.trim() === '' || reason.length > REVERSAL_REASON_MAX_LENGTH
    ? `the reason must be 1 to ${REVERSAL_REASON_MAX_LENGTH} characters`
    : null;
}
