import { newLeadId } from './lead-ids';

describe('newLeadId', () => {
  it('is a version-7 UUID carrying the time it was made', () => {
    const at = Date.parse('2026-11-26T23:59:59.999Z');
    const id = newLeadId(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
  });

  it('differs between calls in one millisecond', () => {
    const at = Date.now();
    expect(new Set(Array.from({ length: 1000 }, () => newLeadId(at))).size).toBe(1000);
  });
});
