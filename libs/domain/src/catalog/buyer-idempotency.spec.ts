import { schoolHonoursIdempotencyKey } from './buyer-idempotency';

describe('schoolHonoursIdempotencyKey', () => {
  it('the sandbox school protocol does (the sandbox replays a known key)', () => {
    expect(schoolHonoursIdempotencyKey({ adapter: 'sandbox', url: 'http://s/leads' })).toBe(true);
  });
  it('a json school only when its catalog says idempotent: true', () => {
    expect(schoolHonoursIdempotencyKey({ adapter: 'json', url: 'http://s/leads', idempotent: true })).toBe(true);
    expect(schoolHonoursIdempotencyKey({ adapter: 'json', url: 'http://s/leads', idempotent: false })).toBe(false);
    expect(schoolHonoursIdempotencyKey({ adapter: 'json', url: 'http://s/leads' })).toBe(false);
  });
  it('no settings: no', () => {
    expect(schoolHonoursIdempotencyKey(undefined)).toBe(false);
    expect(schoolHonoursIdempotencyKey({})).toBe(false);
  });
});
