import { campaignOffer } from '../../../../test/support/catalog-builder';
import { eligibilityVerdict, notOnCampaign } from '../qualify/qualify';
import { ownRankKeys } from '../results/result-entry';
import { searchOutcome } from './search-outcome';

const NOW = new Date('2026-11-25T15:00:00Z');

describe('searchOutcome: what a new search shows of its verdicts', () => {
  const offers = [
    campaignOffer({ offerId: 'a', schoolId: 's1', priority: 5 }),
    campaignOffer({ offerId: 'b', schoolId: 's1', priority: 1 }),
    campaignOffer({ offerId: 'c', eligibility: { states: ['CA'] } }),
    campaignOffer({
      offerId: 'p',
      source: 'partner',
      partner: { id: 'pn', name: 'Partner', adapter: 'sandbox', baseUrl: 'x', timeoutMs: 1000 },
    }),
  ];
  const verdicts = () => [
    ...offers.map((o) =>
      eligibilityVerdict(o, { address: { state: 'TX' } }, NOW, o.source === 'own' ? { kind: 'catalog' } : { kind: 'partner' }),
    ),
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
