import { SUBMIT } from '../decisions/decision-catalog';
import { endsOtherSales, isExclusive, LiveSale, saleRefusal, saleRefusalDecision } from './sale-rules';

const sale = (offerId: string, schoolId: string, offerType: LiveSale['offerType'] = 'shared'): LiveSale => ({
  offerId,
  schoolId,
  offerType,
});

describe('saleRefusal', () => {
  it('allows a first sale of any type', () => {
    for (const t of ['shared', 'exclusive', 'true_exclusive'] as const) expect(saleRefusal([], sale('o1', 's1', t))).toBeNull();
  });
  it('a repost to the same offer is a duplicate', () => {
    expect(saleRefusal([sale('o1', 's1')], sale('o1', 's1'))).toBe('already_sold_to_offer');
    expect(saleRefusalDecision('already_sold_to_offer')).toMatchObject({ code: 'DUPLICATE', reason: 'Duplicate - Offer' });
    expect(saleRefusalDecision('already_sold_to_offer')).toBe(SUBMIT.duplicateOffer);
  });
  it('allows up to three shared sales', () => {
    expect(saleRefusal([sale('o1', 's1'), sale('o2', 's2')], sale('o3', 's3'))).toBeNull();
    expect(saleRefusal([sale('o1', 's1'), sale('o2', 's2'), sale('o3', 's3')], sale('o4', 's4'))).toBe('sale_limit_reached');
  });
  it('true_exclusive ends every other sale, and needs an unsold lead', () => {
    expect(saleRefusal([sale('o1', 's1', 'true_exclusive')], sale('o2', 's2'))).toBe('sold_true_exclusive');
    expect(saleRefusal([sale('o1', 's1')], sale('o2', 's2', 'true_exclusive'))).toBe('already_sold');
  });
  it('exclusive ends sales to the same school only', () => {
    expect(saleRefusal([sale('o1', 's1', 'exclusive')], sale('o2', 's1'))).toBe('school_sold_exclusive');
    expect(saleRefusal([sale('o1', 's1', 'exclusive')], sale('o2', 's2'))).toBeNull();
    expect(saleRefusal([sale('o1', 's1')], sale('o2', 's1', 'exclusive'))).toBe('already_sold');
    expect(saleRefusal([sale('o1', 's1')], sale('o2', 's2', 'exclusive'))).toBeNull();
  });
  it('every refusal but the repost answers NOT_ELIGIBLE with its own reason', () => {
    const reasons = new Set<string>();
    for (const r of ['sold_true_exclusive', 'sale_limit_reached', 'school_sold_exclusive', 'already_sold'] as const) {
      const a = saleRefusalDecision(r);
      expect(a.code).toBe('NOT_ELIGIBLE');
      reasons.add(a.reason);
    }
    expect(reasons.size).toBe(4);
  });
  it('a true_exclusive acceptance alone ends the lead’s other sales', () => {
    expect([endsOtherSales('shared'), endsOtherSales('exclusive'), endsOtherSales('true_exclusive')]).toEqual([false, false, true]);
  });
  it('shows exclusive and true_exclusive offers as is_exclusive', () => {
    expect([isExclusive('shared'), isExclusive('exclusive'), isExclusive('true_exclusive')]).toEqual([false, true, true]);
  });
});
