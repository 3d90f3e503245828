import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { loadSearchState } from '@lr/persistence';
import { REDIS_CLIENT } from '@lr/platform';
import { SearchMeta, searchStateKey } from '@lr/contracts';
import { CachedSearch, orderedEntries, SearchStateStore } from '@lr/redis';
import { Dependencies, DependencyFailure } from '../http/dependencies';

/** A search as a poll answers it: its meta, and its entries already as JSON (bytes), best first. */
export interface PollView {
  meta: Omit<SearchMeta, 'order'>;
  entries: Buffer[];
}

/**
 * A search's state for polling: what Redis holds (hot, written by the
 * search-orchestrator; read in the rate limit's round trip, see
 * ResultsController), with the entries joined as stored, unparsed;
 * PostgreSQL when Redis has no complete copy (expired, flushed, or an entry
 * still on its way), so losing Redis loses no search.
 */
@Injectable()
export class SearchStore {
  private readonly states: SearchStateStore;

  constructor(
    private readonly ds: DataSource,
    private readonly deps: Dependencies,
    @Inject(REDIS_CLIENT) redis: Redis,
  ) {
    this.states = new SearchStateStore(redis);
  }

  /**
   * The search as Redis holds it (its own round trip; polls read it along
   * with the rate limit instead), else PostgreSQL: also when Redis fails or is
   * down now (a search answer's list was stored in PostgreSQL before the
   * orchestrator replied, so a Redis outage that began meanwhile costs a
   * read, not the answer).
   */
  async read(searchId: string): Promise<PollView | undefined> {
    let cached: CachedSearch | undefined;
    try {
      cached = await this.deps.call('redis', () => this.states.read(searchStateKey(searchId)));
    } catch (e) {
      if (!(e instanceof DependencyFailure)) throw e;
    }
    return this.complete(searchId, cached);
  }

  /** The view from what Redis held for the search (read by the caller), or from PostgreSQL when that is not a complete copy. */
  async complete(searchId: string, cached: CachedSearch | undefined): Promise<PollView | undefined> {
    const entries = cached && orderedEntries(cached);
    if (cached && entries !== undefined) return { meta: cached.meta, entries };
    const state = await this.deps.call('postgres', () => loadSearchState(this.ds, searchId));
    if (!state) return undefined;
    const { offers, ...meta } = state;
    return { meta, entries: offers.map((o) => Buffer.from(JSON.stringify(o))) };
  }
}
