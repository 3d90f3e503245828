import { amount, cents } from '../money/money';
import { bookedPayout, payoutTerms, programPayout, resultPayouts } from './payouts';

const PROGRAMS = [
  { value: 'bsn', label: 'BS in Nursing' },
  { value: 'rn-bsn', label: 'RN to BSN' },
];
const NONE = payoutTerms(null, null);
const dollars = (c: number | undefined | null) => (c === undefined || c === null ? c : amount(c as never));

describe('programPayout', () => {
  it('prefers the program payout, falls back to the offer payout, else undefined', () => {
    const cfg = payoutTerms(22.5, { bsn: 30 });
    expect(dollars(programPayout(cfg, 'bsn'))).toBe(30);
    expect(dollars(programPayout(cfg, 'rn-bsn'))).toBe(22.5);
    expect(programPayout(payoutTerms(null, { bsn: 30 }), 'rn-bsn')).toBeUndefined();
    expect(programPayout(NONE, 'bsn')).toBeUndefined();
  });

  it('keeps a configured zero and does not read inherited keys', () => {
    expect(dollars(programPayout(payoutTerms(10, { bsn: 0 }), 'bsn'))).toBe(0);
    expect(dollars(programPayout(payoutTerms(0, null), 'bsn'))).toBe(0);
    expect(programPayout(payoutTerms(null, {}), 'toString')).toBeUndefined();
  });

  it('rounds to cents', () => {
    expect(dollars(programPayout(payoutTerms(1.005, null), 'bsn'))).toBe(1.01);
    expect(dollars(programPayout(payoutTerms(12.3449, null), 'bsn'))).toBe(12.34);
  });

  it('reads PostgreSQL numeric text exactly', () => {
    expect(programPayout(payoutTerms('20.50', { bsn: '35.10' }), 'bsn')).toBe(cents('35.10'));
    expect(programPayout(payoutTerms('20.50', null), 'x')).toBe(2050);
  });
});

describe('resultPayouts', () => {
  it('leaves every payout key out when nothing is configured', () => {
    const res = resultPayouts(NONE, PROGRAMS);
    expect(res).toEqual({ programs: PROGRAMS });
    expect('payout' in res).toBe(false);
    for (const p of res.programs) expect('payout' in p).toBe(false);
  });

  it('overrides per program and falls back to the offer payout for the others', () => {
    const res = resultPayouts(payoutTerms(22.5, { bsn: 30 }), PROGRAMS);
    expect({ ...res, payout: dollars(res.payout) }).toEqual({
      programs: [
        { value: 'bsn', label: 'BS in Nursing', payout: 30 },
        { value: 'rn-bsn', label: 'RN to BSN', payout: 22.5 },
      ],
      payout: 30,
    });
  });

  it('gives the payout key only to programs with one when there is no fallback', () => {
    const res = resultPayouts(payoutTerms(null, { 'rn-bsn': 18.25 }), PROGRAMS);
    expect(res.programs[0]).toEqual({ value: 'bsn', label: 'BS in Nursing' });
    expect('payout' in res.programs[0]).toBe(false);
    expect(res.programs[1]).toEqual({ value: 'rn-bsn', label: 'RN to BSN', payout: 18.25 });
    expect(dollars(res.payout)).toBe(18.25);
  });

  it('takes the best program payout as the result payout, even above the offer payout', () => {
    expect(dollars(resultPayouts(payoutTerms(40, { bsn: 12, 'rn-bsn': 55.5 }), PROGRAMS).payout)).toBe(55.5);
    expect(dollars(resultPayouts(payoutTerms(40, { bsn: 12 }), PROGRAMS).payout)).toBe(40);
  });

  it('uses the offer payout for a result without programs, absent when none', () => {
    const res = resultPayouts(payoutTerms(22.5, { bsn: 30 }), []);
    expect({ ...res, payout: dollars(res.payout) }).toEqual({ programs: [], payout: 22.5 });
    const none = resultPayouts(payoutTerms(null, { bsn: 30 }), []);
    expect(none).toEqual({ programs: [] });
    expect('payout' in none).toBe(false);
  });

  it('rounds amounts to cents and does not change the input programs', () => {
    const programs = PROGRAMS.map((p) => ({ ...p }));
    const res = resultPayouts(payoutTerms(10.0049, { bsn: 19.999 }), programs);
    expect(res.programs.map((p) => p.payout)).toEqual([20, 10]);
    expect(dollars(res.payout)).toBe(20);
    expect(programs).toEqual(PROGRAMS);
  });
});

describe('bookedPayout', () => {
  it('books the chosen program’s payout, else the offer’s, null when none is configured', () => {
    expect(bookedPayout(payoutTerms(20, { bsn: 35 }), 'bsn')).toBe(3500);
    expect(bookedPayout(payoutTerms(20, { bsn: 35 }), 'bba')).toBe(2000);
    expect(bookedPayout(payoutTerms(20, null), null)).toBe(2000);
    expect(bookedPayout(NONE, 'bsn')).toBeNull();
  });
});
