/**
 * A search's live state: what polls read, written by the search-orchestrator
 * (and delivery, when a sale changes it) to Redis; rebuildable from
 * PostgreSQL (searches, results): losing Redis loses no lead. This library is
 * its one home: the key, the lifetime, the codec (search-state-store.ts), the
 * answer's bytes (search-answer.ts), the writer (SearchStatePublisher) and the
 * reader (SearchStateReader). Its shape, SearchMeta, is in libs/contracts.
 */

/** Redis key of a search's state (the client adds the configured key prefix). */
export const searchStateKey = (searchId: string): string => `search:${searchId}`;

/**
 * How long a search's state stays in Redis at most (the baselines' fixed
 * lifetime). The services size it by need (searchStateTtlSeconds).
 */
export const SEARCH_STATE_TTL_SECONDS = 24 * 60 * 60;

/** Kept beyond a search's need, for clocks a little apart and a submit on its way (docs/search.md, Redis). */
export const SEARCH_STATE_MARGIN_SECONDS = 60;

/**
 * How long a search's state must stay in Redis from `now`: while it is open
 * (polls, until `closesAt`) and while a result it showed can be submitted
 * (until the latest `expiresAt` of its entries), plus a margin; never more
 * than SEARCH_STATE_TTL_SECONDS. After that PostgreSQL answers its polls and
 * submits. A writer that does not know its entries' expiries passes none: the
 * store only ever extends a lifetime, never shortens it.
 */
export function searchStateTtlSeconds(closesAt: string, expiresAt: ReadonlyArray<Date | string>, now: number = Date.now()): number {
  let until = Date.parse(closesAt);
  for (const e of expiresAt) until = Math.max(until, typeof e === 'string' ? Date.parse(e) : e.getTime());
  const seconds = Math.ceil((until - now) / 1000) + SEARCH_STATE_MARGIN_SECONDS;
  return Math.min(SEARCH_STATE_TTL_SECONDS, Math.max(SEARCH_STATE_MARGIN_SECONDS, seconds));
}
