import { addCents, type Cents, ZERO } from '../money/money';

/**
 * The totals of a statement (docs/returns.md, "Statements"), in exact cents:
 * the accepted leads and the sum of their amounts (`gross`: the affiliate's
 * payouts, or the school's prices), the returns and the sum of their
 * reversals (`returned`, zero or negative), and `net` = gross + returned.
 * A lead with no amount booked (no payout configured) counts with 0.
 */
export interface StatementTotals {
  accepted: number;
  gross: Cents;
  returns: number;
  returned: Cents;
  net: Cents;
}

export const NO_TOTALS: StatementTotals = Object.freeze({ accepted: 0, gross: ZERO, returns: 0, returned: ZERO, net: ZERO });

/** The totals with one more accepted lead of this amount. */
export function withAccepted(t: StatementTotals, amount: Cents | null): StatementTotals {
  const a = amount ?? ZERO;
  return { ...t, accepted: t.accepted + 1, gross: addCents(t.gross, a), net: addCents(t.net, a) };
}

/** The totals with one more return of this reversal (a negative amount). */
export function withReturn(t: StatementTotals, reversal: Cents | null): StatementTotals {
  const r = reversal ?? ZERO;
  return { ...t, returns: t.returns + 1, returned: addCents(t.returned, r), net: addCents(t.net, r) };
}
