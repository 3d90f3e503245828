/** What ranking needs to know of a result candidate (an own or partner offer that qualified). */
export interface RankCandidate {
  offerId: string;
  schoolId: string;
  priority: number;
  payout?: number;
  source: 'own' | 'partner';
  name: string;
}

export type SearchMode = 'live' | 'test';

export interface MergedResults<T> {
  /** The incoming candidates that joined the results, best first. */
  added: T[];
  /** Everything shown so far (the earlier results and the added ones), best first. */
  ordered: T[];
}

/**
 * Best first: higher priority, then higher payout (no payout ranks below any
 * amount), then own offers before partner offers, then name (English collation),
 * then offer id (plain string order), so the order is total and deterministic.
 */
export function compareCandidates(a: RankCandidate, b: RankCandidate): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.payout !== b.payout) {
    if (a.payout === undefined) return 1;
    if (b.payout === undefined) return -1;
    return b.payout - a.payout;
  }
  if (a.source !== b.source) return a.source === 'own' ? -1 : 1;
  const byName = a.name.localeCompare(b.name, 'en');
  if (byName !== 0) return byName;
  return a.offerId < b.offerId ? -1 : a.offerId > b.offerId ? 1 : 0;
}

/**
 * Adds newly qualified candidates to the results already shown on a search.
 * Shown results are never removed, so each poll can return the whole list.
 * Incoming candidates whose offer is already shown (or repeated in the batch)
 * are dropped. In `live` mode a school appears at most once: an incoming
 * candidate of a school already shown is dropped, and of several incoming
 * candidates of one school only the best is added. In `test` mode every other
 * incoming candidate is added. Pure: the inputs are not changed.
 */
export function mergeResults<T extends RankCandidate>(shown: readonly T[], incoming: readonly T[], mode: SearchMode): MergedResults<T> {
  const offers = new Set(shown.map((c) => c.offerId));
  const schools = new Set(shown.map((c) => c.schoolId));
  const added: T[] = [];
  for (const c of [...incoming].sort(compareCandidates)) {
    if (offers.has(c.offerId)) continue;
    if (mode === 'live' && schools.has(c.schoolId)) continue;
    offers.add(c.offerId);
    schools.add(c.schoolId);
    added.push(c);
  }
  return { added, ordered: [...shown, ...added].sort(compareCandidates) };
}
