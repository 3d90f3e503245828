import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateCatalog } from './validate-catalog';

const example = JSON.parse(readFileSync(join(__dirname, '../../../../test/fixtures/catalog.example.json'), 'utf8'));
/** The example with the own offer's (offers[0]) or the partner offer's (offers[1]) `returns` set. */
const withReturns = (returns: unknown, offer = 0) => {
  const c = JSON.parse(JSON.stringify(example));
  c.offers[offer].returns = returns;
  return c;
};
const messages = (input: unknown) => validateCatalog(input).issues.map((i) => `${i.path}: ${i.message}`);

describe("validateCatalog: an offer's return policy (returns)", () => {
  it('reads a policy, refunds_cap defaulting to false; an offer without one takes no returns (null)', () => {
    const full = validateCatalog(withReturns({ window_days: 7, reasons: ['wrong_number', 'not_the_person'], refunds_cap: true })).catalog!;
    expect(full.offers[0].returns).toEqual({ window_days: 7, reasons: ['wrong_number', 'not_the_person'], refunds_cap: true });
    expect(validateCatalog(withReturns({ window_days: 30, reasons: ['duplicate_in_own_system'] })).catalog!.offers[0].returns).toEqual({
      window_days: 30,
      reasons: ['duplicate_in_own_system'],
      refunds_cap: false,
    });
    const none = validateCatalog(example).catalog!;
    expect(none.offers.map((o) => o.returns)).toEqual([null, null]);
    expect(validateCatalog(withReturns(null)).catalog!.offers[0].returns).toBeNull();
  });

  it('names the path of every problem: unknown and missing keys, the window, the reason codes, refunds_cap', () => {
    expect(messages(withReturns({ days: 7, reasons: ['wrong_number'] }))).toEqual([
      'offers[0].returns.days: unknown key (allowed: window_days, reasons, refunds_cap)',
      'offers[0].returns.window_days: is required',
    ]);
    expect(messages(withReturns({ window_days: 0, reasons: [] }))).toEqual([
      'offers[0].returns.window_days: must be between 1 and 365, got 0',
      'offers[0].returns.reasons: must not be empty',
    ]);
    expect(messages(withReturns({ window_days: 7.5, reasons: ['Wrong number', 'ok', 'ok', 7], refunds_cap: 'yes' }))).toEqual([
      'offers[0].returns.window_days: must be an integer, got number 7.5',
      'offers[0].returns.reasons[0]: must be a reason code: lower-case letters, digits and _ starting with a letter (at most 40), got "Wrong number"',
      'offers[0].returns.reasons[2]: duplicate reason code "ok" (also offers[0].returns.reasons[1])',
      'offers[0].returns.reasons[3]: must be a string, got number 7',
      'offers[0].returns.refunds_cap: must be a boolean, got the string "yes"',
    ]);
    expect(messages(withReturns({ window_days: 400, reasons: Array.from({ length: 21 }, (_, i) => `r${i}`) }))).toEqual([
      'offers[0].returns.window_days: must be between 1 and 365, got 400',
      'offers[0].returns.reasons: must list at most 20 reason codes, got 21',
    ]);
    expect(messages(withReturns('7 days'))).toEqual(['offers[0].returns: must be an object, got the string "7 days"']);
  });

  it('refuses a policy on a partner offer (the partner network bought the lead)', () => {
    expect(messages(withReturns({ window_days: 7, reasons: ['wrong_number'] }, 1))).toEqual([
      "offers[1].returns: not allowed on a partner offer (the partner network bought the lead, not the school: its returns are the partner's business)",
    ]);
  });
});
