import { IDEMPOTENCY_KEY_MAX_LENGTH, readIdempotencyKey, requestBodyDigest } from './idempotency-key';

describe('Idempotency-Key', () => {
  it('no header: no key, the contract behaviour', () => {
    expect(readIdempotencyKey(undefined)).toEqual({ key: null });
  });

  it('a printable ASCII key up to 255 characters is the key', () => {
    expect(readIdempotencyKey('3f1c-order:42_A.b~')).toEqual({ key: '3f1c-order:42_A.b~' });
    expect(readIdempotencyKey('k'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH))).toEqual({ key: 'k'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH) });
  });

  it.each([
    ['sent twice', ['a', 'b'], 'must be sent once'],
    ['empty', '', 'must not be empty'],
    ['too long', 'k'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH + 1), 'at most 255'],
    ['a space', 'a b', 'printable ASCII'],
    ['non-ASCII', 'clé', 'printable ASCII'],
    ['a control character', 'a\tb', 'printable ASCII'],
  ])('%s: 400 INVALID_FIELD naming the header', (_what, header, reason) => {
    const reading = readIdempotencyKey(header);
    expect('refusal' in reading && reading.refusal).toMatchObject({
      http: 400,
      code: 'INVALID_FIELD',
      field: 'Idempotency-Key',
      error: 'idempotency_key_invalid',
    });
    expect('refusal' in reading && reading.refusal.reason).toContain(reason);
  });

  it('the same body in another key order or spacing is the same request; another value is not', () => {
    const a = { svc_campaign_id: 'c', lead: { personal: { email: 'a@b.co', phone: '5125550100' } }, list: [1, 2] };
    const b = JSON.parse('{"list":[1,2],"lead":{"personal":{"phone":"5125550100","email":"a@b.co"}},  "svc_campaign_id":"c"}');
    expect(requestBodyDigest(b)).toBe(requestBodyDigest(a));
    expect(requestBodyDigest({ ...a, list: [2, 1] })).not.toBe(requestBodyDigest(a));
    expect(requestBodyDigest({ ...a, svc_campaign_id: 'd' })).not.toBe(requestBodyDigest(a));
    expect(requestBodyDigest(a)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('digests a body as every earlier release did: a key stored before a deploy still names the same body after it', () => {
    // Escapes, a lone surrogate, non-ASCII, numbers JSON cannot keep exactly, nesting: the digest safe-stable-stringify 2.5.0 gave.
    const body = JSON.parse(
      '{"svc_campaign_id":"c","lead":{"personal":{"first_name":"Zo\u00eb","email":"a@b.co"},"note":"tab\\there \\"q\\" \\u2028 \\ud83d\\ude00 \\ud800"},"n":[1.5,-0,1e21,0.1,12345678901234567890],"x":null,"t":[true,false,{}]}',
    );
    expect(requestBodyDigest(body)).toBe('70d370151e2297ab0eedc563486f1c646434f399f043e2994a85256c4399f535');
  });
});
