import { parseTracking } from './tracking-input';

describe('parseTracking', () => {
  it('keeps string values and normalizes the IP', () => {
    const r = parseTracking({ ip_address: '73.1.2.3, 10.0.0.1', subid: 'a', utm_source: 'g' }, true);
    expect(r.errors).toEqual([]);
    expect(r.tracking.ip).toBe('73.1.2.3');
    expect(r.tracking.values.subid).toBe('a');
  });

  it('requires ip_address when asked', () => {
    expect(parseTracking({}, true).errors).toEqual([
      expect.objectContaining({ field: 'tracking.ip_address', code: 'REQUIRED_FIELD_MISSING' }),
    ]);
    expect(parseTracking({}, false).errors).toEqual([]);
  });

  it.each(['10.0.0.1', '100.64.0.9', '::1', 'nope'])('refuses ip %s naming tracking.ip_address', (ip) => {
    expect(parseTracking({ ip_address: ip }, true).errors).toEqual([
      expect.objectContaining({ field: 'tracking.ip_address', code: 'INVALID_FIELD' }),
    ]);
  });

  it('refuses non-string values naming them', () => {
    expect(parseTracking({ ip_address: '73.1.2.3', subid: 5 }, true).errors[0].field).toBe('tracking.subid');
    expect(parseTracking([], true).errors[0].field).toBe('tracking');
  });

  it('bounds keys like values, naming the tracking object', () => {
    const r = parseTracking({ ip_address: '73.1.2.3', ['k'.repeat(101)]: 'x' }, true);
    expect(r.errors).toEqual([
      expect.objectContaining({ field: 'tracking', code: 'INVALID_FIELD', message: 'tracking keys must be at most 100 characters' }),
    ]);
    expect(parseTracking({ ip_address: '73.1.2.3', ['k'.repeat(100)]: 'x' }, true).errors).toEqual([]);
  });
});
