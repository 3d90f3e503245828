import { IsDefined, IsUUID } from 'class-validator';
import { ApiError } from './api-error';
import { checkDto, markStorableIfClean, requireObjectBody, unstorableTextAt } from './validation';

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

describe('a body marked storable from its JSON text', () => {
  const refusal = (body: unknown) => {
    try {
      requireObjectBody(body);
      return undefined;
    } catch (e) {
      return (e as ApiError).extra.field;
    }
  };

  it('is marked only when its text has no escape that could stand for a NUL or a lone surrogate', () => {
    for (const text of ['{"a":"x\\u0000"}', '{"a":"\\uD800"}', '{"a":"\\udfff"}', '{"k\\u0000":1}']) {
      const parsed = JSON.parse(text) as object;
      markStorableIfClean(text, parsed);
      expect(refusal(parsed)).toBeDefined(); // walked, and refused
    }
    // An escaped backslash before "u0000" is plain text, but marking errs on the side of walking: still accepted after the walk.
    const lookalike = JSON.parse('{"a":"\\\\u0000"}') as object;
    markStorableIfClean('{"a":"\\\\u0000"}', lookalike);
    expect(refusal(lookalike)).toBeUndefined();
  });

  it('is not walked again: a clean text marks the body, and only a body parsed from that text', () => {
    const text = '{"lead":{"first_name":"Ann 😀 \\u00e9"}}';
    const parsed = JSON.parse(text) as object;
    markStorableIfClean(text, parsed);
    expect(refusal(parsed)).toBeUndefined();
    // An object never marked is walked as before.
    expect(refusal({ lead: { first_name: '\u0000' } })).toBe('lead.first_name');
  });
});

describe('checkDto', () => {
  class Shape {
    @IsDefined()
    @IsUUID('all', { message: 'id must be a UUID' })
    id!: string;
  }

  it('validates the body against its DTO without copying it, and a `constructor` key cannot hide the DTO rules', () => {
    expect(checkDto(Shape, { id: 'nope', constructor: 'Object' }).problems).toEqual([
      { field: 'id', code: 'INVALID_FIELD', message: 'id must be a UUID' },
    ]);
    expect(checkDto(Shape, { constructor: Object }).problems.map((p) => p.code)).toEqual(['REQUIRED_FIELD_MISSING']);
    const lead = { first_name: 'Ann' };
    const { dto, problems } = checkDto(Shape, { id: '0b0c6a1e-4f0e-4a57-9d1a-5f0b9a1d2c3e', lead });
    expect(problems).toEqual([]);
    expect(dto).toBeInstanceOf(Shape);
    expect((dto as unknown as { lead: unknown }).lead).toBe(lead);
  });
});
