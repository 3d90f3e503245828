import { campaignOffer } from '../../../../test/support/catalog-builder';
import type { CampaignOffer } from '../catalog/campaign-offer';
import { judgeOffers, notOnCampaign } from '../qualify/qualify';
import { ownRankKeys } from '../results/result-entry';
import { searchOutcome } from './search-outcome';
import { testMode } from '../test-mode/test-mode';

const NOW = new Date('2026-11-25T15:00:00Z');
const offer = (id: string, over: Partial<CampaignOffer> = {}): CampaignOffer => campaignOffer({ offerId: id, ...over });

describe('searchOutcome: what a new search shows of its verdicts', () => {
  const offers = [
    offer('a', { schoolId: 's1', priority: 5 }),
    offer('b', { schoolId: 's1', priority: 1 }),
    offer('c', { eligibility: { states: ['CA'] } }),
    offer('p', { source: 'partner', partner: { id: 'pn', name: 'Partner', adapter: 'sandbox', baseUrl: 'x', timeoutMs: 1000 } }),
  ];
  const verdicts = () => [
    ...judgeOffers(offers, { address: { state: 'TX' } }, { kind: 'catalog' }, NOW, testMode(false)).eligibility,
    notOnCampaign('gone'),
  ];

  it('shows a school once in a live search, naming the better-ranked offer that took its place; asks partners; refuses the rest', () => {
    const out = searchOutcome(offers, verdicts(), 'live', ownRankKeys);
    expect(out.shown.map((c) => c.offerId)).toEqual(['a']);
    expect(out.partnerOffers.map((o) => o.offerId)).toEqual(['p']);
    expect(out.outcomes.get('a')).toMatchObject({ kind: 'shown' });
    expect(out.outcomes.get('b')).toMatchObject({ kind: 'school_already_shown', by: { offerId: 'a' } });
    expect(out.outcomes.get('c')).toMatchObject({ kind: 'refused', verdict: { refusal: 'not_eligible', detail: 'states' } });
    expect(out.outcomes.get('p')).toMatchObject({ kind: 'partner_asked' });
    expect(out.outcomes.has('gone')).toBe(false);
  });

  it('shows every ranked offer in a test search', () => {
    expect(searchOutcome(offers, verdicts(), 'test', ownRankKeys).shown.map((c) => c.offerId)).toEqual(['a', 'b']);
  });
});
