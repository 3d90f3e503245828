/**
 * A search's live state as its writers give it (the search-orchestrator and
 * delivery, from PostgreSQL's `searches` row) and polls read it: everything
 * but the result entries, which are stored as the JSON shown. The state
 * itself (its Redis key, lifetime, codec, the writer and the reader) lives in
 * libs/search-state; this shape is here because PostgreSQL's repository
 * answers it too, and libs/persistence sits below libs/search-state.
 */
export interface SearchMeta {
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
  /** The ids of the result entries shown, best first. */
  order: string[];
}

/** The envelope fields of a search answer's state (everything but the entries and their order). */
export type SearchAnswerState = Omit<SearchMeta, 'order'>;
