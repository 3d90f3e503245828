import { capsAt, slotKey } from '../caps/caps';
import type { CampaignOffer } from '../catalog/campaign-offer';
import { SUBMIT } from '../decisions/decision-catalog';
import { payoutTerms } from '../payouts/payouts';
import { testMode } from '../test-mode/test-mode';
import { campaignOffer } from '../../../../test/support/catalog-builder';
import { eligibilityVerdict, notOnCampaign, qualify, Refused, SaleFacts, saleVerdict, submitDecisionOf } from './qualify';

const NOW = new Date('2026-11-25T15:00:00Z');
/** Northfield Online (o1 of campaign c1): TX and CA; BSN for bachelors, BBA for all; pays 20; two a day. */
const northfield = (over: Partial<CampaignOffer> = {}): CampaignOffer =>
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

describe('qualify: one decision for search and submit, own offers and partner results', () => {
  it('shows an own offer with the programs the lead qualifies for', () => {
    expect(qualify(northfield(), lead, none, live, NOW, { kind: 'catalog' })).toMatchObject({
      offerId: 'o1',
      qualifies: true,
      programs: ['bba'],
    });
  });

  it('judges a partner result on the offer’s rules only (the partner supplies programs)', () => {
    expect(qualify(northfield({ source: 'partner' }), lead, none, live, NOW, { kind: 'partner' })).toEqual({
      offerId: 'o1',
      qualifies: true,
      programs: null,
    });
    expect(qualify(northfield({ source: 'partner' }), { address: { state: 'NV' } }, none, live, NOW, { kind: 'partner' })).toMatchObject({
      qualifies: false,
      refusal: 'not_eligible',
      detail: 'states',
    });
  });

  it('judges the chosen program on a submit', () => {
    expect(eligibilityVerdict(northfield(), lead, NOW, { kind: 'chosen', programId: 'bsn' })).toMatchObject({
      qualifies: false,
      refusal: 'no_eligible_program',
      detail: 'programs.bsn.education_levels',
    });
    expect(eligibilityVerdict(northfield(), lead, NOW, { kind: 'chosen', programId: 'bba' })).toEqual({
      offerId: 'o1',
      qualifies: true,
      programs: ['bba'],
    });
  });

  it('refuses in order: inactive, eligibility, sale state, person, caps', () => {
    const day = capsAt(northfield().caps, NOW)[0];
    const everything: SaleFacts = {
      liveSales: [{ offerId: 'x', schoolId: 's1', offerType: 'exclusive' }],
      lastSales: new Map([['o1', new Date(NOW.getTime() - 86_400_000)]]),
      capUsage: new Map([[slotKey(day.slot), 2]]),
      suppressed: false,
    };
    expect(
      qualify(northfield({ status: 'paused' }), lead, { ...everything, suppressed: true }, live, NOW, { kind: 'catalog' }),
    ).toMatchObject({
      refusal: 'offer_inactive',
    });
    expect(
      qualify(northfield(), { address: { state: 'NV' } }, { ...everything, suppressed: true }, live, NOW, { kind: 'catalog' }),
    ).toMatchObject({ refusal: 'not_eligible' });
    expect(qualify(northfield(), lead, { ...everything, suppressed: true }, live, NOW, { kind: 'catalog' })).toEqual({
      offerId: 'o1',
      qualifies: false,
      refusal: 'opted_out',
      facts: { kind: 'opted_out' },
    });
    expect(qualify(northfield(), lead, everything, live, NOW, { kind: 'catalog' })).toMatchObject({ refusal: 'school_sold_exclusive' });
    expect(qualify(northfield(), lead, { ...everything, liveSales: [] }, live, NOW, { kind: 'catalog' })).toMatchObject({
      refusal: 'duplicate',
    });
    expect(qualify(northfield(), lead, { ...everything, liveSales: [], lastSales: new Map() }, live, NOW, { kind: 'catalog' })).toEqual({
      offerId: 'o1',
      qualifies: false,
      refusal: 'cap_reached',
      facts: { kind: 'cap', cap: day, used: 2 },
    });
  });

  it('refuses an opted-out person in test mode too, and a submit answers the plain NOT_ELIGIBLE', () => {
    const optedOut = qualify(northfield(), lead, { ...none, suppressed: true }, testMode(true), NOW, { kind: 'catalog' });
    expect(optedOut).toMatchObject({ qualifies: false, refusal: 'opted_out' });
    expect(submitDecisionOf(optedOut as Refused)).toEqual(SUBMIT.notEligible);
    expect(SUBMIT.notEligible.reason).toBe('Not eligible');
  });

  it('gives the facts each refusal was decided on', () => {
    const soldAt = new Date(NOW.getTime() - 3 * 86_400_000);
    const trueExclusive = { offerId: 'x', schoolId: 's9', offerType: 'true_exclusive' as const };
    expect(qualify(northfield({ status: 'paused' }), lead, none, live, NOW, { kind: 'catalog' })).toMatchObject({
      facts: { kind: 'offer_status', status: 'paused' },
    });
    expect(qualify(northfield(), { address: { state: 'NV' } }, none, live, NOW, { kind: 'catalog' })).toMatchObject({
      facts: { kind: 'eligibility', failure: { rule: 'states', required: ['TX', 'CA'], actual: 'NV' } },
    });
    expect(qualify(northfield({ programs: [northfield().programs[0]] }), lead, none, live, NOW, { kind: 'catalog' })).toMatchObject({
      refusal: 'no_eligible_program',
      facts: {
        kind: 'programs',
        programs: [{ value: 'bsn', check: { rule: 'education_levels', required: ['bachelor'], actual: 'associate' } }],
      },
    });
    expect(eligibilityVerdict(northfield(), lead, NOW, { kind: 'chosen', programId: 'bsn' })).toMatchObject({
      facts: { kind: 'program', program: 'bsn', failure: { rule: 'education_levels' } },
    });
    expect(saleVerdict(northfield(), { ...none, liveSales: [trueExclusive] }, live, NOW)).toMatchObject({
      facts: { kind: 'sale', refusal: 'sold_true_exclusive', liveSales: 1, by: trueExclusive },
    });
    expect(saleVerdict(northfield(), { ...none, lastSales: new Map([['o1', soldAt]]) }, live, NOW)).toMatchObject({
      facts: { kind: 'duplicate', soldAt, windowDays: 30 },
    });
  });

  it('skips the person check in test mode, and nothing else', () => {
    const sold: SaleFacts = { ...none, lastSales: new Map([['o1', NOW]]) };
    expect(saleVerdict(northfield(), sold, testMode(true), NOW)).toBeNull();
    expect(saleVerdict(northfield(), sold, live, NOW)).toMatchObject({ refusal: 'duplicate' });
    const full: SaleFacts = { ...none, capUsage: new Map([[slotKey(capsAt(northfield().caps, NOW)[0].slot), 2]]) };
    expect(saleVerdict(northfield(), full, testMode(true), NOW)).toMatchObject({ refusal: 'cap_reached' });
  });

  it('closes the sale after a true_exclusive sale, three sales, or for an exclusive offer once sold', () => {
    const one = { offerId: 'x', schoolId: 's9', offerType: 'shared' as const };
    expect(saleVerdict(northfield(), { ...none, liveSales: [{ ...one, offerType: 'true_exclusive' }] }, live, NOW)).toMatchObject({
      refusal: 'sale_closed',
      detail: 'sold_true_exclusive',
    });
    expect(
      saleVerdict(northfield(), { ...none, liveSales: [one, { ...one, offerId: 'y' }, { ...one, offerId: 'z' }] }, live, NOW),
    ).toMatchObject({ refusal: 'sale_closed', detail: 'sale_limit_reached' });
    expect(saleVerdict(northfield({ offerType: 'true_exclusive' }), { ...none, liveSales: [one] }, live, NOW)).toMatchObject({
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
