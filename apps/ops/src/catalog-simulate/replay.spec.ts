import { CampaignOffer, cents } from '@lr/domain';
import { campaignOffer } from '../../../../test/support/catalog-builder';
import { PARTNER_UNKNOWN, RankKeys, replaySearch } from './replay';

/** An offer of campaign c1 priced at 40 (test/support/catalog-builder.ts's defaults otherwise). */
const priced = (over: Partial<CampaignOffer>): CampaignOffer => campaignOffer({ price: cents(40), ...over });
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
      priced({ offerId: 'a', schoolId: 's1', priority: 5 }),
      priced({ offerId: 'b', schoolId: 's1', priority: 1 }),
      priced({ offerId: 'capped' }),
      priced({ offerId: 'ne', eligibility: { states: ['CA'] } }),
      priced({ offerId: 'p1', source: 'partner', partner, schoolId: 's1' }),
      priced({ offerId: 'p2', source: 'partner', partner }),
      priced({ offerId: 'p3', source: 'partner', partner }),
      priced({ offerId: 'p4', source: 'partner', partner }),
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
