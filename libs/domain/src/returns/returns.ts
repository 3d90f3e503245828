import type { Decision } from '../decisions/decision-catalog';
import { REFUSAL, RETURNED } from '../decisions/decision-catalog';
import type { Cents } from '../money/money';

/**
 * A school returns a lead it bought that turned out bad (docs/returns.md):
 * within the offer's window, with one of the offer's reason codes. An offer
 * without a policy (the catalog's `returns`) takes no returns.
 */
export interface ReturnPolicy {
  /** Days (24 hours each) after the sale's acceptance during which the school may return the lead. */
  windowDays: number;
  /** The reason codes the school may give, as the catalog lists them. */
  reasons: readonly string[];
  /** A return gives the sale's cap slots back (the cap counts one sale fewer). */
  refundsCap: boolean;
}

/** The bounds the catalog holds a policy to (CATALOG-style docs: docs/returns.md). */
export const RETURN_POLICY_BOUNDS = { minWindowDays: 1, maxWindowDays: 365, maxReasons: 20 } as const;

/** A reason code: lower-case letters, digits and _, starting with a letter; at most 40 (metrics label it, so it is a code, never text). */
export const RETURN_REASON_RE = /^[a-z][a-z0-9_]{0,39}$/;

/** The operator-only note a return may carry: at most this many characters. */
export const RETURN_NOTE_MAX = 500;

const DAY_MS = 24 * 60 * 60 * 1000;

/** What a return of one lead by one school is decided on, as stored now. */
export interface ReturnFacts {
  /**
   * The school's accepted sale of the lead; null when the school did not buy
   * it (never received it, another school's lead, refused, still pending, a
   * test lead): then the lead is unknown to the school.
   */
  sale: { offerId: string; acceptedAt: Date; payout: Cents | null; price: Cents | null } | null;
  /** The offer's policy now; null: the offer takes no returns. */
  policy: ReturnPolicy | null;
  /** The lead's return, when it was returned before. */
  returned: { at: Date; reason: string } | null;
  /** The database's clock. */
  now: Date;
}

/** What a return does when allowed: reversal entries (negative amounts; null where none was booked) and the cap slots given back or not. */
export interface ReturnEntries {
  payoutReversal: Cents | null;
  priceReversal: Cents | null;
  refundsCap: boolean;
}

export type ReturnVerdict = { kind: 'refused'; decision: Decision } | ({ kind: 'return' } & ReturnEntries);

/** Whether a sale accepted at `acceptedAt` may still be returned at `now`: strictly within `windowDays` × 24 hours. */
export function returnWindowOpen(acceptedAt: Date, windowDays: number, now: Date): boolean {
  return now.getTime() < acceptedAt.getTime() + windowDays * DAY_MS;
}

/** The entry that takes an amount back: its negative (null stays null: nothing was booked). */
export function reversalOf(amount: Cents | null): Cents | null {
  return amount === null ? null : ((0 - amount) as Cents);
}

/**
 * Whether the school may return the lead with this reason, in order: a lead
 * the school did not buy is unknown (404, no hint whose it is); a lead
 * returned before answers so (409; a second return has no effect); an offer
 * without a policy takes none (409); a reason outside the offer's list names
 * the field (400); past the window (409). Allowed: the reversal of the
 * affiliate's payout and of the school's price, and whether the cap slots go
 * back.
 */
export function returnVerdict(facts: ReturnFacts, reason: string): ReturnVerdict {
  const refuse = (decision: Decision): ReturnVerdict => ({ kind: 'refused', decision });
  const { sale, policy } = facts;
  if (!sale) return refuse(REFUSAL.returnLeadNotFound);
  if (facts.returned) return refuse(REFUSAL.alreadyReturned);
  if (!policy) return refuse(REFUSAL.noReturnPolicy);
  if (!policy.reasons.includes(reason)) return refuse(REFUSAL.returnReasonUnknown(policy.reasons.join(', ')));
  if (!returnWindowOpen(sale.acceptedAt, policy.windowDays, facts.now)) return refuse(REFUSAL.returnWindowClosed);
  return { kind: 'return', payoutReversal: reversalOf(sale.payout), priceReversal: reversalOf(sale.price), refundsCap: policy.refundsCap };
}

/** The buyer API's answer to a return it booked: the envelope, the lead, and the return as stored. */
export interface ReturnAnswerBody {
  code: 'OK';
  status: 'accepted';
  reason: string;
  success: true;
  retryable: false;
  svc_lead_id: string;
  returned: { at: string; reason: string };
}

export function returnAnswer(leadId: string, returned: { at: Date; reason: string }): ReturnAnswerBody {
  return {
    code: RETURNED.code as 'OK',
    status: RETURNED.status as 'accepted',
    reason: RETURNED.reason,
    success: true,
    retryable: false,
    svc_lead_id: leadId,
    returned: { at: returned.at.toISOString(), reason: returned.reason },
  };
}
