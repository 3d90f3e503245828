import type { PartnerRef } from '@lr/contracts';
import { CampaignOffer, OfferOutcome, OfferVerdict, ownResult, ResultCandidate, searchOutcome, TestMode } from '@lr/domain';
import type { OfferDecision } from '@lr/persistence';

/** One request to a partner network: its offers that qualified. */
export interface PartnerCall {
  partner: PartnerRef;
  offers: Array<{ offerId: string; externalId: string }>;
}

/** What a new search shows at once, whom it asks, and why each offer was or was not shown (for operators). */
export interface SearchPlan {
  shown: ResultCandidate[];
  partnerCalls: PartnerCall[];
  decisions: Record<string, OfferDecision>;
}

/**
 * What the verdicts (libs/domain qualify) mean for a new search
 * (libs/domain searchOutcome): the own offers shown (best first; a live
 * search shows each school once, a test search every offer: test-mode), one
 * call per partner network for its qualifying offers, and why every offer
 * was or was not shown.
 */
export function planSearch(offers: readonly CampaignOffer[], verdicts: readonly OfferVerdict[], mode: TestMode, now: Date): SearchPlan {
  const outcome = searchOutcome(offers, verdicts, mode.ranking, (offer, programs) => ownResult(offer, programs, now));
  const decisions: Record<string, OfferDecision> = {};
  for (const [offerId, o] of outcome.outcomes) decisions[offerId] = decisionOf(o);
  const partnerOffers = new Map<string, CampaignOffer[]>();
  for (const offer of outcome.partnerOffers) {
    const group = partnerOffers.get(offer.partner!.id) ?? [];
    group.push(offer);
    partnerOffers.set(offer.partner!.id, group);
  }
  return { shown: outcome.shown, partnerCalls: [...partnerOffers.values()].map(partnerCall), decisions };
}

/** An outcome as `offer_decisions` stores it. */
function decisionOf(o: OfferOutcome<ResultCandidate>): OfferDecision {
  switch (o.kind) {
    case 'shown':
      return { shown: true, result_id: o.candidate.resultId };
    case 'school_already_shown':
      return { shown: false, reason: 'school_already_shown' };
    case 'partner_asked':
      return { shown: false, reason: 'partner_asked', partner: o.offer.partner!.name };
    case 'refused':
      return { shown: false, reason: o.verdict.refusal, ...(o.verdict.detail ? { detail: o.verdict.detail } : {}) };
  }
}

export function partnerCall(group: readonly CampaignOffer[]): PartnerCall {
  return { partner: group[0].partner!, offers: group.map((o) => ({ offerId: o.offerId, externalId: o.externalId! })) };
}
