import { cents, type Cents } from '../money/money';
import { REFUSAL } from '../decisions/decision-catalog';
import { returnVerdict, returnWindowOpen, reversalOf, type ReturnFacts } from './returns';

const accepted = new Date('2026-11-01T12:00:00Z');
const hours = (h: number) => new Date(accepted.getTime() + h * 3600_000);
const facts = (over: Partial<ReturnFacts> = {}): ReturnFacts => ({
  sale: { offerId: 'o1', acceptedAt: accepted, payout: cents('22.50'), price: cents('45.00') },
  policy: { windowDays: 7, reasons: ['wrong_number', 'not_the_person'], refundsCap: true },
  returned: null,
  now: hours(24),
  ...over,
});

describe('returns: the window', () => {
  it('is open strictly within window_days x 24 hours of the acceptance', () => {
    expect(returnWindowOpen(accepted, 7, accepted)).toBe(true);
    expect(returnWindowOpen(accepted, 7, hours(7 * 24 - 0.001))).toBe(true);
    expect(returnWindowOpen(accepted, 7, hours(7 * 24))).toBe(false);
    expect(returnWindowOpen(accepted, 1, hours(25))).toBe(false);
  });
});

describe('returns: the verdict', () => {
  it('a return inside the window with a listed reason reverses the payout and the price, and refunds the cap as the policy says', () => {
    expect(returnVerdict(facts(), 'wrong_number')).toEqual({
      kind: 'return',
      payoutReversal: -2250,
      priceReversal: -4500,
      refundsCap: true,
    });
    const noRefund = facts({ policy: { windowDays: 7, reasons: ['wrong_number'], refundsCap: false } });
    expect(returnVerdict(noRefund, 'wrong_number')).toMatchObject({ kind: 'return', refundsCap: false });
  });

  it('reverses nothing that was not booked (no payout configured)', () => {
    const noPayout = facts({ sale: { offerId: 'o1', acceptedAt: accepted, payout: null, price: cents(0) } });
    expect(returnVerdict(noPayout, 'wrong_number')).toMatchObject({ kind: 'return', payoutReversal: null, priceReversal: 0 });
  });

  it.each<[string, Partial<ReturnFacts>, string, unknown]>([
    ['a lead the school did not buy: 404, whose it is not said', { sale: null }, 'wrong_number', REFUSAL.returnLeadNotFound],
    [
      'a lead returned before: 409, even with another reason or past the window',
      { returned: { at: hours(1), reason: 'wrong_number' }, now: hours(999) },
      'bad',
      REFUSAL.alreadyReturned,
    ],
    ['an offer without a policy: 409, it takes no returns', { policy: null }, 'wrong_number', REFUSAL.noReturnPolicy],
    [
      "a reason not in the offer's list: 400 naming reason",
      {},
      'changed_mind',
      REFUSAL.returnReasonUnknown('wrong_number, not_the_person'),
    ],
    ['past the window: 409', { now: hours(7 * 24) }, 'wrong_number', REFUSAL.returnWindowClosed],
  ])('%s', (_label, over, reason, decision) => {
    expect(returnVerdict(facts(over), reason)).toEqual({ kind: 'refused', decision });
  });

  it("names the field and the offer's codes in the 400, and answers 409 with their own codes", () => {
    const unknown = REFUSAL.returnReasonUnknown('wrong_number, not_the_person');
    expect([unknown.http, unknown.code, unknown.field, unknown.reason]).toEqual([
      400,
      'INVALID_FIELD',
      'reason',
      "reason must be one of the offer's return reasons: wrong_number, not_the_person",
    ]);
    expect([REFUSAL.alreadyReturned.http, REFUSAL.alreadyReturned.code]).toEqual([409, 'ALREADY_RETURNED']);
    expect([REFUSAL.returnWindowClosed.http, REFUSAL.returnWindowClosed.code]).toEqual([409, 'RETURN_WINDOW_CLOSED']);
    expect([REFUSAL.noReturnPolicy.http, REFUSAL.noReturnPolicy.code]).toEqual([409, 'RETURN_WINDOW_CLOSED']);
  });

  it('a reversal is the negative of the amount, exactly', () => {
    expect(reversalOf(cents('0.10'))).toBe(-10);
    expect(reversalOf(null)).toBeNull();
    expect(reversalOf(0 as Cents)).toBe(0);
  });
});
