import { programPayout, resultPayouts, type PayoutConfig } from './payouts';

const PROGRAMS = [
  { value: 'bsn', label: 'BS in Nursing' },
  { value: 'rn-bsn', label: 'RN to BSN' },
];
const NONE: PayoutConfig = { payout: null, programPayouts: null };

describe('programPayout', () => {
  it('prefers the program payout, falls back to the offer payout, else undefined', () => {
    const cfg: PayoutConfig = { payout: 22.5, programPayouts: { bsn: 30 } };
    expect(programPayout(cfg, 'bsn')).toBe(30);
    expect(programPayout(cfg, 'rn-bsn')).toBe(22.5);
    expect(programPayout({ payout: null, programPayouts: { bsn: 30 } }, 'rn-bsn')).toBeUndefined();
    expect(programPayout(NONE, 'bsn')).toBeUndefined();
  });

  it('keeps a configured zero and does not read inherited keys', () => {
    expect(programPayout({ payout: 10, programPayouts: { bsn: 0 } }, 'bsn')).toBe(0);
    expect(programPayout({ payout: 0, programPayouts: null }, 'bsn')).toBe(0);
    expect(programPayout({ payout: null, programPayouts: {} }, 'toString')).toBeUndefined();
  });

  it('rounds to cents', () => {
    expect(programPayout({ payout: 1.005, programPayouts: null }, 'bsn')).toBe(1.01);
    expect(programPayout({ payout: 12.3449, programPayouts: null }, 'bsn')).toBe(12.34);
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
    const res = resultPayouts({ payout: 22.5, programPayouts: { bsn: 30 } }, PROGRAMS);
    expect(res).toEqual({
      programs: [
        { value: 'bsn', label: 'BS in Nursing', payout: 30 },
        { value: 'rn-bsn', label: 'RN to BSN', payout: 22.5 },
      ],
      payout: 30,
    });
  });

  it('gives the payout key only to programs with one when there is no fallback', () => {
    const res = resultPayouts({ payout: null, programPayouts: { 'rn-bsn': 18.25 } }, PROGRAMS);
    expect(res.programs[0]).toEqual({ value: 'bsn', label: 'BS in Nursing' });
    expect('payout' in res.programs[0]).toBe(false);
    expect(res.programs[1]).toEqual({ value: 'rn-bsn', label: 'RN to BSN', payout: 18.25 });
    expect(res.payout).toBe(18.25);
  });

  it('takes the best program payout as the result payout, even above the offer payout', () => {
    expect(resultPayouts({ payout: 40, programPayouts: { bsn: 12, 'rn-bsn': 55.5 } }, PROGRAMS).payout).toBe(55.5);
    expect(resultPayouts({ payout: 40, programPayouts: { bsn: 12 } }, PROGRAMS).payout).toBe(40);
  });

  it('uses the offer payout for a result without programs, absent when none', () => {
    expect(resultPayouts({ payout: 22.5, programPayouts: { bsn: 30 } }, [])).toEqual({ programs: [], payout: 22.5 });
    const none = resultPayouts({ payout: null, programPayouts: { bsn: 30 } }, []);
    expect(none).toEqual({ programs: [] });
    expect('payout' in none).toBe(false);
  });

  it('rounds amounts to cents and does not change the input programs', () => {
    const programs = PROGRAMS.map((p) => ({ ...p }));
    const res = resultPayouts({ payout: 10.0049, programPayouts: { bsn: 19.999 } }, programs);
    expect(res.programs.map((p) => p.payout)).toEqual([20, 10]);
    expect(res.payout).toBe(20);
    expect(programs).toEqual(PROGRAMS);
  });
});
