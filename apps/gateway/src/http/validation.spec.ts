import { ApiError } from './api-error';
import { requireObjectBody, unstorableTextAt } from './validation';

describe('unstorable text', () => {
  it('names the first key or value with a NUL or an unpaired surrogate by its JSON path', () => {
    expect(unstorableTextAt({ lead: { personal: { first_name: 'A\u0000' } } })).toBe('lead.personal.first_name');
    expect(unstorableTextAt({ a: 'ok', tracking: { subid: 'x\ud800' } })).toBe('tracking.subid');
    expect(unstorableTextAt({ answers: ['ok', ['\udc00y']] })).toBe('answers[1][0]');
    expect(unstorableTextAt({ first: 'x\u0000', second: 'y\u0000' })).toBe('first');
    // A bad key is named with U+FFFD in place of what cannot be echoed.
    expect(unstorableTextAt({ tracking: { ['k\u0000']: 'v' } })).toBe('tracking.k\ufffd');
  });
  it('lets well-formed text through: emoji (surrogate pairs), RTL, zero-width, other control characters', () => {
    expect(unstorableTextAt({ a: '😀 مرحبا \u200b\u200f\u0001 \ud83d\ude00', '😀': ['\ufeff'] })).toBeUndefined();
  });
  it('requireObjectBody refuses it as INVALID_FIELD naming the field', () => {
    let thrown: unknown;
    try {
      requireObjectBody({ lead: { first_name: '\ud800' } });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const e = thrown as ApiError;
    expect([e.httpStatus, e.code, e.extra.field]).toEqual([400, 'INVALID_FIELD', 'lead.first_name']);
  });
});
