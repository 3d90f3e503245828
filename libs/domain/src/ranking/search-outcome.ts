import type { CampaignOffer } from '../catalog/campaign-offer';
import type { OfferVerdict, Refused } from '../qualify/qualify';
import { mergeResults, RankCandidate, SearchMode } from './ranking';

/** What one offer of the campaign came to when a search started. */
export type OfferOutcome<C extends RankCandidate> =
  | { kind: 'shown'; candidate: C }
  | { kind: 'refused'; verdict: Refused }
  /** It qualified, but a live search shows a school once and `by` (the same school's) ranked higher. */
  | { kind: 'school_already_shown'; candidate: C; by: C }
  /** A partner offer that qualified: its partner network is asked, its result merges in later. */
  | { kind: 'partner_asked'; offer: CampaignOffer };

export interface SearchOutcome<C extends RankCandidate> {
  /** The own offers shown at once, best first. */
  shown: C[];
  /** The partner offers to ask about, in the campaign's order. */
  partnerOffers: CampaignOffer[];
  /** Every judged offer's outcome, by offer id. */
  outcomes: Map<string, OfferOutcome<C>>;
}

/**
 * What the verdicts (qualify/) mean for a new search (affiliate-api.md,
 * "Results"; docs/search.md): the own offers that qualify are ranked and
 * shown best first, a live search showing each school once (its best-ranked
 * offer) and a test search every one; the partner offers that qualify are
 * asked about; every other offer is left out by its refusal. The search
 * stores this, `ops lead explain` reads it again and `ops catalog simulate`
 * replays it: `candidateOf` makes the search's result (with its entry) or
 * only what ranking needs.
 */
export function searchOutcome<C extends RankCandidate>(
  offers: readonly CampaignOffer[],
  verdicts: readonly OfferVerdict[],
  mode: SearchMode,
  candidateOf: (offer: CampaignOffer, programs: readonly string[]) => C,
): SearchOutcome<C> {
  const byId = new Map(offers.map((o) => [o.offerId, o]));
  const outcomes = new Map<string, OfferOutcome<C>>();
  const own: C[] = [];
  const partnerOffers: CampaignOffer[] = [];
  for (const verdict of verdicts) {
    const offer = byId.get(verdict.offerId);
    if (!offer) continue;
    if (!verdict.qualifies) {
      outcomes.set(offer.offerId, { kind: 'refused', verdict });
    } else if (offer.source === 'own') {
      own.push(candidateOf(offer, verdict.programs ?? []));
    } else if (offer.partner) {
      partnerOffers.push(offer);
      outcomes.set(offer.offerId, { kind: 'partner_asked', offer });
    }
  }
  const { added } = mergeResults([], own, mode);
  const shown = new Set(added);
  for (const c of own) {
    if (shown.has(c)) outcomes.set(c.offerId, { kind: 'shown', candidate: c });
    else outcomes.set(c.offerId, { kind: 'school_already_shown', candidate: c, by: added.find((a) => a.schoolId === c.schoolId)! });
  }
  return { shown: added, partnerOffers, outcomes };
}
