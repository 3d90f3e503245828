import { campaignOffer } from '../../../../test/support/catalog-builder';
import { capsAt, slotKey } from '../caps/caps';
import type { CampaignOffer } from '../catalog/campaign-offer';
import { SUBMIT } from '../decisions/decision-catalog';
import { payoutTerms } from '../payouts/payouts';
import type { Lead } from '../lead-input';
import { TestMode, testMode } from '../test-mode/test-mode';
import { judgeOffers, notOnCampaign, OfferVerdict, ProgramsJudged, Refused, SaleFacts, submitDecisionOf } from './qualify';

const NOW = new Date('2026-11-25T15:00:00Z');
/** An active shared own offer o1 of c1 for TX and CA, two programs (BSN for bachelors only), paying 20, capped at 2 a day. */
const offer = (over: Partial<CampaignOffer> = {}): CampaignOffer =>
  campaignOffer({
    offerId: 'o1',
    name: 'Northfield Online',
    schoolId: 's1',
    schoolName: 'Northfield',
    tcpaText: 'I agree',
    eligibility: { states: ['TX', 'CA'] },
    programs: [
      { value: 'bsn', label: 'BSN', eligibility: { education_levels: ['bachelor'] } },
      { value: 'bba', label: 'BBA', eligibility: {} },
    ],
    payouts: payoutTerms(20, null),
    caps: [{ offerId: 'o1', campaignId: null, period: 'day', limit: 2, timezone: 'America/New_York' }],
    ...over,
  });
const lead = { address: { state: 'TX' }, education: { education_level: 'associate' } };
const none: SaleFacts = { liveSales: [], lastSales: new Map(), capUsage: new Map(), suppressed: false };
const live = testMode(false);
/** One offer judged on facts already read. */
const judge = (o: CampaignOffer, l: Lead, facts: SaleFacts, mode: TestMode, now: Date, programs: ProgramsJudged): OfferVerdict =>
  judgeOffers([o], l, programs, now, mode).decide(facts)[0];
/** Steps 1 and 2 alone: what an offer comes to before any sale fact is read. */
const eligibilityOf = (o: CampaignOffer, l: Lead, now: Date, programs: ProgramsJudged): OfferVerdict =>
  judgeOffers([o], l, programs, now, live).eligibility[0];
/** Steps 3 to 6 for an offer the lead is eligible for (`lead`, catalog programs): null when the sale is allowed. */
const saleOf = (o: CampaignOffer, facts: SaleFacts, mode: TestMode, now: Date): Refused | null => {
  const v = judge(o, lead, facts, mode, now, { kind: 'catalog' });
  return v.qualifies ? null : v;
};

describe('judgeOffers: one decision for search and submit, own offers and partner results', () => {
  it('shows an own offer with the programs the lead qualifies for', () => {
    expect(judge(offer(), lead, none, live, NOW, { kind: 'catalog' })).toMatchObject({
      offerId: 'o1',
      qualifies: true,
      programs: ['bba'],
    });
  });

  it('judges a partner result on the offer’s rules only (the partner supplies programs)', () => {
    expect(judge(offer({ source: 'partner' }), lead, none, live, NOW, { kind: 'partner' })).toEqual({
      offerId: 'o1',
      qualifies: true,
      programs: null,
    });
    expect(judge(offer({ source: 'partner' }), { address: { state: 'NV' } }, none, live, NOW, { kind: 'partner' })).toMatchObject({
      qualifies: false,
      refusal: 'not_eligible',
      detail: 'states',
    });
  });

  it('judges the chosen program on a submit', () => {
    expect(eligibilityOf(offer(), lead, NOW, { kind: 'chosen', programId: 'bsn' })).toMatchObject({
      qualifies: false,
      refusal: 'no_eligible_program',
      detail: 'programs.bsn.education_levels',
    });
    expect(eligibilityOf(offer(), lead, NOW, { kind: 'chosen', programId: 'bba' })).toEqual({
      offerId: 'o1',
      qualifies: true,
      programs: ['bba'],
    });
  });

  it('refuses in order: inactive, eligibility, sale state, person, caps', () => {
    const day = capsAt(offer().caps, NOW)[0];
    const everything: SaleFacts = {
      liveSales: [{ offerId: 'x', schoolId: 's1', offerType: 'exclusive' }],
      lastSales: new Map([['o1', new Date(NOW.getTime() - 86_400_000)]]),
      capUsage: new Map([[slotKey(day.slot), 2]]),
      suppressed: false,
    };
    expect(judge(offer({ status: 'paused' }), lead, { ...everything, suppressed: true }, live, NOW, { kind: 'catalog' })).toMatchObject({
      refusal: 'offer_inactive',
    });
    expect(judge(offer(), { address: { state: 'NV' } }, { ...everything, suppressed: true }, live, NOW, { kind: 'catalog' })).toMatchObject(
      { refusal: 'not_eligible' },
    );
    expect(judge(offer(), lead, { ...everything, suppressed: true }, live, NOW, { kind: 'catalog' })).toEqual({
      offerId: 'o1',
      qualifies: false,
      refusal: 'opted_out',
      facts: { kind: 'opted_out' },
    });
    expect(judge(offer(), lead, everything, live, NOW, { kind: 'catalog' })).toMatchObject({ refusal: 'school_sold_exclusive' });
    expect(judge(offer(), lead, { ...everything, liveSales: [] }, live, NOW, { kind: 'catalog' })).toMatchObject({
      refusal: 'duplicate',
    });
    expect(judge(offer(), lead, { ...everything, liveSales: [], lastSales: new Map() }, live, NOW, { kind: 'catalog' })).toEqual({
      offerId: 'o1',
      qualifies: false,
      refusal: 'cap_reached',
      facts: { kind: 'cap', cap: day, used: 2 },
    });
  });

  it('refuses an opted-out person in test mode too, and a submit answers the plain NOT_ELIGIBLE', () => {
    const optedOut = judge(offer(), lead, { ...none, suppressed: true }, testMode(true), NOW, { kind: 'catalog' });
    expect(optedOut).toMatchObject({ qualifies: false, refusal: 'opted_out' });
    expect(submitDecisionOf(optedOut as Refused)).toEqual(SUBMIT.notEligible);
    expect(SUBMIT.notEligible.reason).toBe('Not eligible');
  });

  it('gives the facts each refusal was decided on', () => {
    const soldAt = new Date(NOW.getTime() - 3 * 86_400_000);
    const trueExclusive = { offerId: 'x', schoolId: 's9', offerType: 'true_exclusive' as const };
    expect(judge(offer({ status: 'paused' }), lead, none, live, NOW, { kind: 'catalog' })).toMatchObject({
      facts: { kind: 'offer_status', status: 'paused' },
    });
    expect(judge(offer(), { address: { state: 'NV' } }, none, live, NOW, { kind: 'catalog' })).toMatchObject({
      facts: { kind: 'eligibility', failure: { rule: 'states', required: ['TX', 'CA'], actual: 'NV' } },
    });
    expect(judge(offer({ programs: [offer().programs[0]] }), lead, none, live, NOW, { kind: 'catalog' })).toMatchObject({
      refusal: 'no_eligible_program',
      facts: {
        kind: 'programs',
        programs: [{ value: 'bsn', check: { rule: 'education_levels', required: ['bachelor'], actual: 'associate' } }],
      },
    });
    expect(eligibilityOf(offer(), lead, NOW, { kind: 'chosen', programId: 'bsn' })).toMatchObject({
      facts: { kind: 'program', program: 'bsn', failure: { rule: 'education_levels' } },
    });
    expect(saleOf(offer(), { ...none, liveSales: [trueExclusive] }, live, NOW)).toMatchObject({
      facts: { kind: 'sale', refusal: 'sold_true_exclusive', liveSales: 1, by: trueExclusive },
    });
    expect(saleOf(offer(), { ...none, lastSales: new Map([['o1', soldAt]]) }, live, NOW)).toMatchObject({
      facts: { kind: 'duplicate', soldAt, windowDays: 30 },
    });
  });

  it('skips the person check in test mode, and nothing else', () => {
    const sold: SaleFacts = { ...none, lastSales: new Map([['o1', NOW]]) };
    expect(saleOf(offer(), sold, testMode(true), NOW)).toBeNull();
    expect(saleOf(offer(), sold, live, NOW)).toMatchObject({ refusal: 'duplicate' });
    const full: SaleFacts = { ...none, capUsage: new Map([[slotKey(capsAt(offer().caps, NOW)[0].slot), 2]]) };
    expect(saleOf(offer(), full, testMode(true), NOW)).toMatchObject({ refusal: 'cap_reached' });
  });

  it('closes the sale after a true_exclusive sale, three sales, or for an exclusive offer once sold', () => {
    const one = { offerId: 'x', schoolId: 's9', offerType: 'shared' as const };
    expect(saleOf(offer(), { ...none, liveSales: [{ ...one, offerType: 'true_exclusive' }] }, live, NOW)).toMatchObject({
      refusal: 'sale_closed',
      detail: 'sold_true_exclusive',
    });
    expect(saleOf(offer(), { ...none, liveSales: [one, { ...one, offerId: 'y' }, { ...one, offerId: 'z' }] }, live, NOW)).toMatchObject({
      refusal: 'sale_closed',
      detail: 'sale_limit_reached',
    });
    expect(saleOf(offer({ offerType: 'true_exclusive' }), { ...none, liveSales: [one] }, live, NOW)).toMatchObject({
      refusal: 'sale_closed',
      detail: 'already_sold',
    });
  });

  it('answers each refusal on a submit with the contract’s decision', () => {
    expect(submitDecisionOf(notOnCampaign('o1'))).toBe(SUBMIT.offerUnavailable);
    expect(submitDecisionOf({ offerId: 'o1', qualifies: false, refusal: 'no_eligible_program' })).toBe(SUBMIT.notEligible);
    expect(submitDecisionOf({ offerId: 'o1', qualifies: false, refusal: 'duplicate' })).toBe(SUBMIT.duplicateOffer);
    expect(submitDecisionOf({ offerId: 'o1', qualifies: false, refusal: 'cap_reached' })).toBe(SUBMIT.capReached);
    expect(submitDecisionOf({ offerId: 'o1', qualifies: false, refusal: 'sale_closed', detail: 'already_sold_to_offer' })).toBe(
      SUBMIT.duplicateOffer,
    );
    expect(submitDecisionOf({ offerId: 'o1', qualifies: false, refusal: 'school_sold_exclusive', detail: 'school_sold_exclusive' })).toBe(
      SUBMIT.schoolBoughtExclusive,
    );
  });
});

describe('judgeOffers: the sale facts are read for the eligible offers only', () => {
  const own = offer();
  const paused = offer({ offerId: 'o2', status: 'paused' });
  const elsewhere = offer({ offerId: 'o3', eligibility: { states: ['NV'] } });
  const partner = offer({ offerId: 'o4', source: 'partner', programs: [] });

  it('reads once, for the candidates, and decides every offer in the offers’ order', async () => {
    const judged = judgeOffers([own, paused, elsewhere, partner], lead, { kind: 'catalog' }, NOW, live);
    expect(judged.candidates.map((o) => o.offerId)).toEqual(['o1', 'o4']);
    const reads: string[][] = [];
    const full: SaleFacts = { ...none, capUsage: new Map([[slotKey(capsAt(own.caps, NOW)[0].slot), 2]]) };
    const { verdicts, facts } = await judged.read(async (candidates) => {
      reads.push(candidates.map((o) => o.offerId));
      return { ...full, extra: 'the caller’s own facts come back' };
    });
    expect(reads).toEqual([['o1', 'o4']]);
    expect(facts?.extra).toBe('the caller’s own facts come back');
    expect(verdicts.map((v) => [v.offerId, v.qualifies ? 'qualifies' : v.refusal])).toEqual([
      ['o1', 'cap_reached'],
      ['o2', 'offer_inactive'],
      ['o3', 'not_eligible'],
      ['o4', 'cap_reached'],
    ]);
    expect(verdicts).toEqual(judged.decide(full));
  });

  it('reads nothing when no offer is eligible', async () => {
    const judged = judgeOffers([paused, elsewhere], lead, { kind: 'catalog' }, NOW, live);
    const read = jest.fn(async () => none);
    const { verdicts, facts } = await judged.read(read);
    expect(read).not.toHaveBeenCalled();
    expect(facts).toBeNull();
    expect(verdicts).toEqual(judged.eligibility);
    expect(verdicts.map((v) => !v.qualifies && v.refusal)).toEqual(['offer_inactive', 'not_eligible']);
    expect((await judgeOffers([], lead, { kind: 'catalog' }, NOW, live).read(read)).verdicts).toEqual([]);
    expect(read).not.toHaveBeenCalled();
  });

  it('refuses on eligibility whatever the facts say (an ineligible offer’s facts are never consulted)', () => {
    const optedOut = judgeOffers([paused, elsewhere, own], lead, { kind: 'catalog' }, NOW, live).decide({ ...none, suppressed: true });
    expect(optedOut.map((v) => !v.qualifies && v.refusal)).toEqual(['offer_inactive', 'not_eligible', 'opted_out']);
  });

  it('judges a partner offer’s programs as its partner’s, whatever an own offer’s are judged by', () => {
    for (const programs of [{ kind: 'catalog' }, { kind: 'chosen', programId: 'bsn' }] as const) {
      expect(judgeOffers([partner], lead, programs, NOW, live).eligibility[0]).toEqual({ offerId: 'o4', qualifies: true, programs: null });
    }
  });

  it('keeps eligibility’s program checks beside a sale refusal (explain shows both)', () => {
    const judged = judgeOffers([own], lead, { kind: 'catalog' }, NOW, live);
    expect(judged.decide({ ...none, suppressed: true })[0]).toMatchObject({ refusal: 'opted_out' });
    expect(judged.eligibility[0]).toMatchObject({
      qualifies: true,
      programChecks: [
        { value: 'bsn', check: { eligible: false, rule: 'education_levels' } },
        { value: 'bba', check: { eligible: true } },
      ],
    });
  });

  it('replays a search with its sale-time refusals as stored, for the offers still eligible', () => {
    const stored: Record<string, { refusal: string; detail?: string }> = {
      o1: { refusal: 'sale_closed', detail: 'sold_true_exclusive' },
      o3: { refusal: 'cap_reached' },
      o4: { refusal: 'partner_timeout' },
    };
    const verdicts = judgeOffers([own, paused, elsewhere, partner], lead, { kind: 'catalog' }, NOW, live).replay((id) => stored[id]);
    expect(verdicts).toEqual([
      { offerId: 'o1', qualifies: false, refusal: 'sale_closed', detail: 'sold_true_exclusive' },
      expect.objectContaining({ offerId: 'o2', refusal: 'offer_inactive' }),
      expect.objectContaining({ offerId: 'o3', refusal: 'not_eligible' }),
      { offerId: 'o4', qualifies: true, programs: null },
    ]);
  });
});
