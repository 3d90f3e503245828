import { amount, cents, decimalText, sumCents } from '../money/money';
import { NO_TOTALS, withAccepted, withReturn } from './statement';

describe('statement totals (exact decimal)', () => {
  it('10,000 payouts of 0.10 sum to exactly 1000.00, where adding the JS number 0.1 does not', () => {
    const payouts = Array.from({ length: 10_000 }, () => cents(0.1));
    expect(decimalText(sumCents(payouts))).toBe('1000.00');
    let float = 0;
    for (let i = 0; i < 10_000; i += 1) float += 0.1;
    expect(float).not.toBe(1000);
    const totals = payouts.reduce(withAccepted, NO_TOTALS);
    expect([totals.accepted, decimalText(totals.gross), decimalText(totals.net)]).toEqual([10_000, '1000.00', '1000.00']);
  });

  it('returns reduce the net by their reversals; gross stays what was accepted', () => {
    let t = [cents('22.50'), cents('22.50'), null, cents('0.05')].reduce(withAccepted, NO_TOTALS);
    t = withReturn(withReturn(t, cents('-22.50')), null);
    expect({ ...t, gross: decimalText(t.gross), returned: decimalText(t.returned), net: decimalText(t.net) }).toEqual({
      accepted: 4,
      gross: '45.05',
      returns: 2,
      returned: '-22.50',
      net: '22.55',
    });
    expect(amount(t.net)).toBe(22.55);
  });
});
