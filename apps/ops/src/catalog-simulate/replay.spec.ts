import { CampaignOffer, cents, payoutTerms } from '@lr/domain';
import { PARTNER_UNKNOWN, RankKeys, replaySearch } from './replay';

const offer = (id: string, over: Partial<CampaignOffer> = {}): CampaignOffer => ({
  offerId: id,
  campaignId: 'c1',
  name: `Offer ${id}`,
  schoolId: `s-${id}`,
  schoolName: 'S',
  schoolLogoUrl: null,
  source: 'own',
  offerType: 'shared',
  status: 'active',
  priority: 1,
  tcpaText: null,
  resultTtlSeconds: 900,
  duplicateWindowDays: 30,
  eligibility: {},
  programs: [],
  formFields: [],
  payouts: payoutTerms(10, null),
  price: cents(40),
  caps: [],
  delivery: null,
  externalId: null,
  partner: null,
  ...over,
});
const partner = { id: 'pn', name: 'Partner', adapter: 'sandbox', baseUrl: 'x', timeoutMs: 1000 };
const search = (kept: Record<string, string>) => ({
  id: 's1',
  campaignId: 'c1',
  createdAt: new Date('2026-11-25T15:00:00Z'),
  lead: { address: { state: 'TX' } },
  kept,
});

describe('replaySearch: a stored search against a catalog', () => {
  it('replays eligibility and ranking, and takes sale-time refusals and partner answers as stored', () => {
    const offers = [
      offer('a', { schoolId: 's1', priority: 5 }),
      offer('b', { schoolId: 's1', priority: 1 }),
      offer('capped'),
      offer('ne', { eligibility: { states: ['CA'] } }),
      offer('p1', { source: 'partner', partner, schoolId: 's1' }),
      offer('p2', { source: 'partner', partner }),
      offer('p3', { source: 'partner', partner }),
      offer('p4', { source: 'partner', partner }),
    ];
    const out = replaySearch(
      offers,
      search({ capped: 'cap_reached', p1: 'shown', p2: 'partner_timeout:no answer within 1000 ms', p3: 'shown' }),
      new RankKeys(),
    );
    expect(Object.fromEntries([...out].map(([id, o]) => [id, o.shown ? 'shown' : o.rule]))).toEqual({
      a: 'shown',
      b: 'school_already_shown',
      capped: 'cap_reached',
      ne: 'not_eligible (states)',
      p1: 'school_already_shown',
      p2: 'partner_timeout',
      p3: 'shown',
      p4: PARTNER_UNKNOWN,
    });
    expect(out.get('a')).toMatchObject({ payout: 1000, price: 4000 });
  });
});
