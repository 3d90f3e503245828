import { randomUUID } from 'node:crypto';
import { CampaignOffer, OfferVerdict, payoutTerms, testMode } from '@lr/domain';
import { campaignOffer } from '../../../../test/support/catalog-builder';
import { planSearch } from './search-plan';

const now = new Date('2026-11-21T12:00:00Z');

/** An offer of campaign c with programs a and b and no payout, its own school. */
function planned(over: Partial<CampaignOffer>): CampaignOffer {
  return campaignOffer({
    campaignId: 'c',
    name: 'Offer',
    schoolId: randomUUID(),
    schoolName: 'School',
    priority: 0,
    tcpaText: 'ok',
    resultTtlSeconds: 600,
    programs: [
      { value: 'a', label: 'A', eligibility: {} },
      { value: 'b', label: 'B', eligibility: {} },
    ],
    payouts: payoutTerms(null, null),
    ...over,
  });
}
const partner = { id: randomUUID(), name: 'P', adapter: 'sandbox', baseUrl: 'http://127.0.0.1:9/p', timeoutMs: 1000 };
const ok = (o: CampaignOffer, programs: string[] | null = ['a', 'b']): OfferVerdict => ({ offerId: o.offerId, qualifies: true, programs });

describe('planSearch', () => {
  const school = randomUUID();
  const best = planned({ name: 'Best', priority: 9, schoolId: school, payouts: payoutTerms(10, { b: 15 }) });
  const sameSchool = planned({ name: 'Same school', priority: 5, schoolId: school });
  const other = planned({ name: 'Other', priority: 7 });
  const refused = planned({ name: 'Refused' });
  const paused = planned({ name: 'Paused', status: 'paused' });
  const p1 = planned({ name: 'P1', source: 'partner', partner, externalId: 'x1', programs: [] });
  const p2 = planned({ name: 'P2', source: 'partner', partner, externalId: 'x2', programs: [] });
  const offers = [best, sameSchool, other, refused, paused, p1, p2];
  const verdicts: OfferVerdict[] = [
    ok(best),
    ok(sameSchool, ['a']),
    ok(other, ['b']),
    { offerId: refused.offerId, qualifies: false, refusal: 'cap_reached' },
    { offerId: paused.offerId, qualifies: false, refusal: 'offer_inactive' },
    ok(p1, null),
    ok(p2, null),
  ];

  it('shows a school once in a live search, best first, with the qualifying programs and payouts', () => {
    const plan = planSearch(offers, verdicts, testMode(false), now);
    expect(plan.shown.map((c) => c.entry.offer.name)).toEqual(['Best', 'Other']);
    expect(plan.shown[0].entry.programs).toEqual([
      { value: 'a', label: 'A', payout: 10 },
      { value: 'b', label: 'B', payout: 15 },
    ]);
    expect(plan.shown[0].entry.payout).toBe(15);
    expect(plan.shown[1].entry.programs).toEqual([{ value: 'b', label: 'B' }]);
    expect(plan.shown[1].entry).not.toHaveProperty('payout');
    expect(plan.shown[0].entry.expires_at).toBe('2026-11-21T12:10:00.000Z');
  });

  it('shows every ranked offer in a test search', () => {
    const plan = planSearch(offers, verdicts, testMode(true), now);
    expect(plan.shown.map((c) => c.entry.offer.name)).toEqual(['Best', 'Other', 'Same school']);
  });

  it('asks each partner once about its qualifying offers and records every decision', () => {
    const plan = planSearch(offers, verdicts, testMode(false), now);
    expect(plan.partnerCalls).toEqual([
      {
        partner,
        offers: [
          { offerId: p1.offerId, externalId: 'x1' },
          { offerId: p2.offerId, externalId: 'x2' },
        ],
      },
    ]);
    expect(plan.decisions[refused.offerId]).toEqual({ shown: false, reason: 'cap_reached' });
    expect(plan.decisions[paused.offerId]).toEqual({ shown: false, reason: 'offer_inactive' });
    expect(plan.decisions[sameSchool.offerId]).toEqual({ shown: false, reason: 'school_already_shown' });
    expect(plan.decisions[best.offerId]).toEqual({ shown: true, result_id: plan.shown[0].resultId });
    expect(plan.decisions[p1.offerId]).toEqual({ shown: false, reason: 'partner_asked', partner: 'P' });
  });
});
