/**
 * "The person was already sold to this offer" (affiliate-api.md: `DUPLICATE`,
 * "Duplicate - Offer (the service already has the lead for that offer)"; the
 * duplicate pre-check answers the same rule ahead of a submit): any one of the
 * person's keys (email; phone; last name + ZIP + date of birth, normalized and
 * hashed as the contract's pre-check table says: normalize/dedupe-keys.ts) was
 * on a live sale of the offer within the offer's `duplicate_window_days`.
 * The dedupe index answers when each key was last sold to each offer; this
 * decides.
 */

/** When the person (any of their keys) was last sold to each offer, from the dedupe index. */
export type LastSales = ReadonlyMap<string, Date>;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whether a sale at `soldAt` still makes a new sale of the same offer to the same person a duplicate at `now`. */
export function soldWithinWindow(soldAt: Date | undefined, windowDays: number, now: Date): boolean {
  return soldAt !== undefined && soldAt.getTime() > now.getTime() - windowDays * DAY_MS;
}

/** The offers (each with its window) already sold to the person within their windows. */
export function offersSoldToPerson(
  lastSales: LastSales,
  offers: ReadonlyArray<{ offerId: string; windowDays: number }>,
  now: Date,
): Set<string> {
  return new Set(offers.filter((o) => soldWithinWindow(lastSales.get(o.offerId), o.windowDays, now)).map((o) => o.offerId));
}
