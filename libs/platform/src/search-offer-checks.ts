import { MAX_ACCEPTED_SUBMISSIONS, OfferCheckOutcome } from '@lr/contracts';
import { Lead, qualifyOffer } from '@lr/domain';
import { counter } from '@lr/observability';
import type { CampaignOfferRecord, SearchCheckFacts } from '@lr/persistence';

const refusals = counter('checks_search_refusals_total', 'Offers left out of a search, by reason', ['refusal']);

/** An offer that passed the catalog rules, waiting for the facts read from PostgreSQL. */
export interface OfferCandidate {
  offer: CampaignOfferRecord;
  /** Own offers: the qualifying program values. Partner offers: null (the partner supplies programs). */
  programs: string[] | null;
}

/**
 * The search-time checks (issue: search and polling, item 3), the part that
 * needs only the catalog and the lead, cheapest first: on the campaign and
 * active; offer eligibility, then program eligibility (own offers; a partner
 * supplies its programs). Refused offers get their outcome; the rest are
 * candidates for judgeCandidates. Used by the checks service for a search's
 * offers and by the orchestrator for a partner's results (one code, so partner
 * results pass the same checks as own offers).
 */
export function screenOffers(
  catalog: Map<string, CampaignOfferRecord>,
  offerIds: string[],
  lead: Lead,
  today: Date,
): { refused: Map<string, OfferCheckOutcome>; candidates: OfferCandidate[] } {
  const refused = new Map<string, OfferCheckOutcome>();
  const candidates: OfferCandidate[] = [];
  for (const offerId of offerIds) {
    const offer = catalog.get(offerId);
    if (!offer) {
      refused.set(offerId, refuse(offerId, 'not_on_campaign'));
      continue;
    }
    if (offer.status !== 'active') {
      refused.set(offerId, refuse(offerId, 'offer_inactive'));
      continue;
    }
    const own = offer.source === 'own';
    const verdict = qualifyOffer(offer.eligibility, own ? offer.programs : [], lead, today);
    if (!verdict.ok) {
      refused.set(offerId, refuse(offerId, verdict.refusal, verdict.detail));
      continue;
    }
    candidates.push({ offer, programs: own ? verdict.programs : null });
  }
  return { refused, candidates };
}

/**
 * The rest of the search-time checks, on what PostgreSQL says now: the lead's
 * sale state (no more results once sold true_exclusive or
 * max_accepted_submissions times; a school that bought it exclusive is not
 * offered again), caps already full, and the person already sold to the offer
 * within its duplicate window. Outcomes come back in `offerIds` order.
 */
export function judgeCandidates(
  offerIds: string[],
  screened: { refused: Map<string, OfferCheckOutcome>; candidates: OfferCandidate[] },
  facts: SearchCheckFacts,
): OfferCheckOutcome[] {
  const outcomes = new Map(screened.refused);
  const { fullCaps, alreadySold, sale } = facts;
  const saleClosed = sale.trueExclusiveAccepted || sale.acceptedCount >= MAX_ACCEPTED_SUBMISSIONS;
  for (const { offer, programs } of screened.candidates) {
    const id = offer.offerId;
    // A true_exclusive sale needs an unsold lead (libs/domain saleRefusal), so it is not offered once sold.
    if (saleClosed || (offer.offerType === 'true_exclusive' && sale.acceptedCount > 0)) outcomes.set(id, refuse(id, 'sale_closed'));
    else if (sale.exclusiveSchoolIds.has(offer.schoolId)) outcomes.set(id, refuse(id, 'school_sold_exclusive'));
    else if (fullCaps.has(id)) outcomes.set(id, refuse(id, 'cap_reached'));
    else if (alreadySold.has(id)) outcomes.set(id, refuse(id, 'duplicate'));
    else outcomes.set(id, { offerId: id, qualifies: true, programs });
  }
  return offerIds.map((id) => outcomes.get(id)!);
}

function refuse(offerId: string, refusal: NonNullable<OfferCheckOutcome['refusal']>, detail?: string): OfferCheckOutcome {
  refusals.inc({ refusal });
  return { offerId, qualifies: false, refusal, ...(detail ? { detail } : {}), programs: null };
}
