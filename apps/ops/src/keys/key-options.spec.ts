import { generateApiKey, keyPrefix, API_KEY_RE } from './api-key-format';
import { parseExpiresAt, parseLimitSpecs } from './key-options';

describe('key options', () => {
  const now = new Date('2026-06-01T00:00:00Z');

  it('parses --limit specs into per-endpoint overrides', () => {
    expect(parseLimitSpecs([])).toEqual({});
    expect(parseLimitSpecs(['search=120/20', 'dupe-check=10/5'])).toEqual({
      search: { perMinute: 120, burst: 20 },
      'dupe-check': { perMinute: 10, burst: 5 },
    });
  });

  it('refuses bad --limit specs, all of them at once', () => {
    expect(() => parseLimitSpecs(['poll=1/1', 'search=1', 'leads=0/1'])).toThrow(
      /unknown endpoint "poll"[\s\S]*expected <endpoint>=<per-minute>\/<burst>[\s\S]*between 1 and/,
    );
    expect(() => parseLimitSpecs(['search=1/1', 'search=2/2'])).toThrow(/limited twice/);
  });

  it('parses --expires-at: a date (midnight UTC) or a date-time with a zone, in the future', () => {
    expect(parseExpiresAt('2027-01-31', now).toISOString()).toBe('2027-01-31T00:00:00.000Z');
    expect(parseExpiresAt('2027-01-31T12:30:00+02:00', now).toISOString()).toBe('2027-01-31T10:30:00.000Z');
    expect(() => parseExpiresAt('2027-01-31T12:30:00', now)).toThrow(/with a zone/);
    expect(() => parseExpiresAt('2027-02-29', now)).toThrow(/not a real date/);
    expect(() => parseExpiresAt('2026-05-31', now)).toThrow(/must be in the future/);
    expect(() => parseExpiresAt('next week', now)).toThrow(/ISO 8601/);
  });

  it('generates lr_ + 43 base64url characters; the prefix is the first 8', () => {
    const keys = new Set(Array.from({ length: 50 }, () => generateApiKey()));
    expect(keys.size).toBe(50);
    for (const key of keys) {
      expect(key).toMatch(API_KEY_RE);
      expect(key).toHaveLength(46);
      expect(keyPrefix(key)).toBe(key.slice(0, 8));
    }
  });
});
