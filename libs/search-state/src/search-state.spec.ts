import { SEARCH_STATE_MARGIN_SECONDS, SEARCH_STATE_TTL_SECONDS, searchStateTtlSeconds } from './search-state';

describe('searchStateTtlSeconds: a search stays in Redis while it is open and its results can be submitted', () => {
  const now = Date.parse('2026-11-26T10:00:00.000Z');
  const closesAt = '2026-11-26T10:00:45.000Z';

  it('an open search without known expiries: until it closes, plus the margin', () => {
    expect(searchStateTtlSeconds(closesAt, [], now)).toBe(45 + SEARCH_STATE_MARGIN_SECONDS);
  });

  it('until its latest result expires (Date or ISO text), plus the margin', () => {
    expect(searchStateTtlSeconds(closesAt, [new Date(now + 900_000), '2026-11-26T10:05:00.000Z'], now)).toBe(
      900 + SEARCH_STATE_MARGIN_SECONDS,
    );
  });

  it('a closed search whose results expired: the margin alone; never more than a day', () => {
    expect(searchStateTtlSeconds('2026-11-26T09:00:00.000Z', [new Date(now - 1000)], now)).toBe(SEARCH_STATE_MARGIN_SECONDS);
    expect(searchStateTtlSeconds(closesAt, [new Date(now + 3 * 86_400_000)], now)).toBe(SEARCH_STATE_TTL_SECONDS);
  });
});
