import { Injectable } from '@nestjs/common';
import { SearchAnswerState } from '@lr/contracts';
import { SearchRepository } from '@lr/persistence';
import { CachedSearch, orderedEntries } from '@lr/redis';
import { Dependencies } from '../http/dependencies';

/** A search as a poll answers it: its meta, and its entries already as JSON (bytes), best first. */
export interface PollView {
  meta: SearchAnswerState;
  entries: Buffer[];
}

/**
 * A search's state for polling: what Redis holds (hot, written by the
 * search-orchestrator; read in the rate limit's round trip, see
 * ResultsController), with the entries joined as stored, unparsed;
 * PostgreSQL when Redis has no complete copy (expired, flushed, failed, or an
 * entry still on its way), so losing Redis loses no search.
 */
@Injectable()
export class SearchStore {
  constructor(
    private readonly searches: SearchRepository,
    private readonly deps: Dependencies,
  ) {}

  /** The view from what Redis held for the search (read by the caller; undefined when it had none or failed), else from PostgreSQL. */
  async complete(searchId: string, cached: CachedSearch | undefined): Promise<PollView | undefined> {
    const entries = cached && orderedEntries(cached);
    if (cached && entries !== undefined) return { meta: cached.meta, entries };
    const state = await this.deps.call('postgres', () => this.searches.state(searchId));
    return state && { meta: state.meta, entries: state.entries };
  }
}
