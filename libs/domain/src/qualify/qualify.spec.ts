import { capsAt, slotKey } from '../caps/caps';
import type { CampaignOffer } from '../catalog/campaign-offer';
import { SUBMIT } from '../decisions/decision-catalog';
import { payoutTerms } from '../payouts/payouts';
import { testMode } from '../test-mode/test-mode';
import { eligibilityVerdict, notOnCampaign, qualify, Refused, SaleFacts, saleVerdict, submitDecisionOf } from './qualify';

const NOW = new Date('2026-11-25T15:00:00Z');
const offer = (over: Partial<CampaignOffer> = {}): CampaignOffer => ({
  offerId: 'o1',
  campaignId: 'c1',
  name: 'Northfield Online',
  schoolId: 's1',
  schoolName: 'Northfield',
  schoolLogoUrl: null,
  source: 'own',
  offerType: 'shared',
  status: 'active',
  priority: 1,
  tcpaText: 'I agree',
  resultTtlSeconds: 900,
  duplicateWindowDays: 30,
  eligibility: { states: ['TX', 'CA'] },
  programs: [
    { value: 'bsn', label: 'BSN', eligibility: { education_levels: ['bachelor'] } },
    { value: 'bba', label: 'BBA', eligibility: {} },
  ],
  formFields: [],
  payouts: payoutTerms(20, null),
  price: null,
  caps: [{ offerId: 'o1', campaignId: null, period: 'day', limit: 2, timezone: 'America/New_York' }],
  delivery: null,
  externalId: null,
  partner: null,
  ...over,
});
const lead = { address: { state: 'TX' }, education: { education_level: 'associate' } };
const none: SaleFacts = { liveSales: [], lastSales: new Map(), capUsage: new Map(), suppressed: false };
const live = testMode(false);

describe('qualify: one decision for search and submit, own offers and partner results', () => {
  it('shows an own offer with the programs the lead qualifies for', () => {
    expect(qualify(offer(), lead, none, live, NOW, { kind: 'catalog' })).toMatchObject({
      offerId: 'o1',
      qualifies: true,
      programs: ['bba'],
    });
  });

  it('judges a partner result on the offer’s rules only (the partner supplies programs)', () => {
    expect(qualify(offer({ source: 'partner' }), lead, none, live, NOW, { kind: 'partner' })).toEqual({
      offerId: 'o1',
      qualifies: true,
      programs: null,
    });
    expect(qualify(offer({ source: 'partner' }), { address: { state: 'NV' } }, none, live, NOW, { kind: 'partner' })).toMatchObject({
      qualifies: false,
      refusal: 'not_eligible',
      detail: 'states',
    });
  });

  it('judges the chosen program on a submit', () => {
    expect(eligibilityVerdict(offer(), lead, NOW, { kind: 'chosen', programId: 'bsn' })).toMatchObject({
      qualifies: false,
      refusal: 'no_eligible_program',
      detail: 'programs.bsn.education_levels',
    });
    expect(eligibilityVerdict(offer(), lead, NOW, { kind: 'chosen', programId: 'bba' })).toEqual({
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
    expect(qualify(offer({ status: 'paused' }), lead, { ...everything, suppressed: true }, live, NOW, { kind: 'catalog' })).toMatchObject({
      refusal: 'offer_inactive',
    });
    expect(
      qualify(offer(), { address: { state: 'NV' } }, { ...everything, suppressed: true }, live, NOW, { kind: 'catalog' }),
    ).toMatchObject({ refusal: 'not_eligible' });
    expect(qualify(offer(), lead, { ...everything, suppressed: true }, live, NOW, { kind: 'catalog' })).toEqual({
      offerId: 'o1',
      qualifies: false,
      refusal: 'opted_out',
      facts: { kind: 'opted_out' },
    });
    expect(qualify(offer(), lead, everything, live, NOW, { kind: 'catalog' })).toMatchObject({ refusal: 'school_sold_exclusive' });
    expect(qualify(offer(), lead, { ...everything, liveSales: [] }, live, NOW, { kind: 'catalog' })).toMatchObject({
      refusal: 'duplicate',
    });
    expect(qualify(offer(), lead, { ...everything, liveSales: [], lastSales: new Map() }, live, NOW, { kind: 'catalog' })).toEqual({
      offerId: 'o1',
      qualifies: false,
      refusal: 'cap_reached',
      facts: { kind: 'cap', cap: day, used: 2 },
    });
  });

  it('refuses an opted-out person in test mode too, and a submit answers the plain NOT_ELIGIBLE', () => {
    const optedOut = qualify(offer(), lead, { ...none, suppressed: true }, testMode(true), NOW, { kind: 'catalog' });
    expect(optedOut).toMatchObject({ qualifies: false, refusal: 'opted_out' });
    expect(submitDecisionOf(optedOut as Refused)).toEqual(SUBMIT.notEligible);
    expect(SUBMIT.notEligible.reason).toBe('Not eligible');
  });

  it('gives the facts each refusal was decided on', () => {
    const soldAt = new Date(NOW.getTime() - 3 * 86_400_000);
    const trueExclusive = { offerId: 'x', schoolId: 's9', offerType: 'true_exclusive' as const };
    expect(qualify(offer({ status: 'paused' }), lead, none, live, NOW, { kind: 'catalog' })).toMatchObject({
      facts: { kind: 'offer_status', status: 'paused' },
    });
    expect(qualify(offer(), { address: { state: 'NV' } }, none, live, NOW, { kind: 'catalog' })).toMatchObject({
      facts: { kind: 'eligibility', failure: { rule: 'states', required: ['TX', 'CA'], actual: 'NV' } },
    });
    expect(qualify(offer({ programs: [offer().programs[0]] }), lead, none, live, NOW, { kind: 'catalog' })).toMatchObject({
      refusal: 'no_eligible_program',
      facts: {
        kind: 'programs',
        programs: [{ value: 'bsn', check: { rule: 'education_levels', required: ['bachelor'], actual: 'associate' } }],
      },
    });
    expect(eligibilityVerdict(offer(), lead, NOW, { kind: 'chosen', programId: 'bsn' })).toMatchObject({
      facts: { kind: 'program', program: 'bsn', failure: { rule: 'education_levels' } },
    });
    expect(saleVerdict(offer(), { ...none, liveSales: [trueExclusive] }, live, NOW)).toMatchObject({
      facts: { kind: 'sale', refusal: 'sold_true_exclusive', liveSales: 1, by: trueExclusive },
    });
    expect(saleVerdict(offer(), { ...none, lastSales: new Map([['o1', soldAt]]) }, live, NOW)).toMatchObject({
      facts: { kind: 'duplicate', soldAt, windowDays: 30 },
    });
  });

  it('skips the person check in test mode, and nothing else', () => {
    const sold: SaleFacts = { ...none, lastSales: new Map([['o1', NOW]]) };
    expect(saleVerdict(offer(), sold, testMode(true), NOW)).toBeNull();
    expect(saleVerdict(offer(), sold, live, NOW)).toMatchObject({ refusal: 'duplicate' });
    const full: SaleFacts = { ...none, capUsage: new Map([[slotKey(capsAt(offer().caps, NOW)[0].slot), 2]]) };
    expect(saleVerdict(offer(), full, testMode(true), NOW)).toMatchObject({ refusal: 'cap_reached' });
  });

  it('closes the sale after a true_exclusive sale, three sales, or for an exclusive offer once sold', () => {
    const one = { offerId: 'x', schoolId: 's9', offerType: 'shared' as const };
    expect(saleVerdict(offer(), { ...none, liveSales: [{ ...one, offerType: 'true_exclusive' }] }, live, NOW)).toMatchObject({
      refusal: 'sale_closed',
      detail: 'sold_true_exclusive',
    });
    expect(
      saleVerdict(offer(), { ...none, liveSales: [one, { ...one, offerId: 'y' }, { ...one, offerId: 'z' }] }, live, NOW),
    ).toMatchObject({ refusal: 'sale_closed', detail: 'sale_limit_reached' });
    expect(saleVerdict(offer({ offerType: 'true_exclusive' }), { ...none, liveSales: [one] }, live, NOW)).toMatchObject({
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
