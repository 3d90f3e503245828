import type { PartnerRef } from '@lr/contracts';
import { CampaignOffer, mergeResults, OfferVerdict, ownResult, ResultCandidate, TestMode } from '@lr/domain';
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
 * What the verdicts (libs/domain qualify) mean for a new search: the own
 * offers shown (best first; a live search shows each school once, a test
 * search every offer: test-mode), one call per partner network for its
 * qualifying offers, and why every offer was or was not shown.
 */
export function planSearch(offers: readonly CampaignOffer[], verdicts: readonly OfferVerdict[], mode: TestMode, now: Date): SearchPlan {
  const byId = new Map(offers.map((o) => [o.offerId, o]));
  const decisions: Record<string, OfferDecision> = {};
  const own: ResultCandidate[] = [];
  const partnerOffers = new Map<string, CampaignOffer[]>();
  for (const verdict of verdicts) {
    const offer = byId.get(verdict.offerId);
    if (!offer) continue;
    if (!verdict.qualifies) {
      decisions[offer.offerId] = { shown: false, reason: verdict.refusal, ...(verdict.detail ? { detail: verdict.detail } : {}) };
    } else if (offer.source === 'own') {
      own.push(ownResult(offer, verdict.programs ?? [], now));
    } else if (offer.partner) {
      const group = partnerOffers.get(offer.partner.id) ?? [];
      group.push(offer);
      partnerOffers.set(offer.partner.id, group);
      decisions[offer.offerId] = { shown: false, reason: 'partner_asked', partner: offer.partner.name };
    }
  }
  const { added } = mergeResults([], own, mode.ranking);
  const shown = new Set(added.map((c) => c.resultId));
  for (const c of own) {
    decisions[c.offerId] = shown.has(c.resultId) ? { shown: true, result_id: c.resultId } : { shown: false, reason: 'school_already_shown' };
  }
  return { shown: added, partnerCalls: [...partnerOffers.values()].map(partnerCall), decisions };
}

export function partnerCall(group: readonly CampaignOffer[]): PartnerCall {
  return { partner: group[0].partner!, offers: group.map((o) => ({ offerId: o.offerId, externalId: o.externalId! })) };
}
