import { amount, cents, centsOrNull, decimalText } from './money';

describe('money (exact decimal)', () => {
  it('reads catalog numbers and PostgreSQL numeric text as whole cents', () => {
    expect(cents(12.5)).toBe(1250);
    expect(cents(0.29)).toBe(29);
    expect(cents(1.15)).toBe(115);
    expect(cents('20.50')).toBe(2050);
    expect(cents('7')).toBe(700);
    expect(cents('0.05')).toBe(5);
    expect(cents('-3.10')).toBe(-310);
    expect(centsOrNull(null)).toBeNull();
  });

  it('writes numeric text and the contract’s shortest JSON number', () => {
    expect(decimalText(cents(12.5))).toBe('12.50');
    expect(decimalText(cents(0.05))).toBe('0.05');
    expect(decimalText(cents('-3.1'))).toBe('-3.10');
    expect(JSON.stringify({ payout: amount(cents(0.29)) })).toBe('{"payout":0.29}');
    expect(JSON.stringify({ payout: amount(cents('35.00')) })).toBe('{"payout":35}');
  });

  it('adds exactly where floating point would not', () => {
    const sum = [0.1, 0.2, 0.3].map((a) => cents(a)).reduce((s, c) => s + c, 0);
    expect(sum).toBe(60);
    expect(0.1 + 0.2 + 0.3).not.toBe(0.6);
  });

  it('refuses what is not an amount', () => {
    expect(() => cents('12.345')).toThrow(RangeError);
    expect(() => cents('abc')).toThrow(RangeError);
    expect(() => cents(1e13)).toThrow(RangeError);
  });
});
