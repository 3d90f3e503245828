import type { ResultEntry } from './result-entry';

/**
 * The hot state of one search in Redis, written by the search-orchestrator and
 * read by the gateway to answer polls. Rebuildable from PostgreSQL (searches,
 * results): losing Redis loses no lead.
 */
export interface SearchState {
  searchId: string;
  /** Bumped by every change (searches.state_version): Redis never goes back to an older version. */
  version: number;
  affiliateId: string;
  campaignId: string;
  isTest: boolean;
  /** ISO time the search opened and the time it closes at the latest (opened + 45 s). */
  createdAt: string;
  closesAt: string;
  /** True once every offer answered; the gateway also treats a search past closesAt as done. */
  processingDone: boolean;
  acceptedCount: number;
  trueExclusiveAccepted: boolean;
  /** Result entries, best first, exactly as shown to the affiliate. */
  offers: ResultEntry[];
}

/**
 * What Redis holds about a search besides its result entries (a hash: field
 * `meta` is this as JSON, `v` its version, and `r:<result id>` each entry's
 * JSON exactly as shown). Entries never change once shown, so a writer adds
 * only new ones; `order` lists them best first.
 */
export type SearchMeta = Omit<SearchState, 'offers'> & { order: string[] };

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

/** Suggested wait between polls while a search is open (contract: about one second). */
export const POLL_AFTER_MS = 1000;
