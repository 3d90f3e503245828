import { Inject, Injectable, Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { SEARCH_STATE_TTL_SECONDS, SearchState, searchStateKey } from '@lr/contracts';
import { loadSearchState } from '@lr/persistence';
import { REDIS_CLIENT } from '@lr/platform';
import { VersionedJsonStore } from '@lr/redis';

/**
 * Publishes a search's state from PostgreSQL (the truth) to Redis (what polls
 * read). Always the whole state, read after the change committed, written only
 * if newer than what Redis holds.
 */
@Injectable()
export class SearchStatePublisher {
  private readonly log = new Logger(SearchStatePublisher.name);
  private readonly store: VersionedJsonStore;

  constructor(
    private readonly ds: DataSource,
    @Inject(REDIS_CLIENT) redis: Redis,
  ) {
    this.store = new VersionedJsonStore(redis);
  }

  /** Reads the state and writes it to Redis; a Redis failure is thrown (the caller decides whether it matters). */
  async publish(searchId: string): Promise<SearchState> {
    const state = await loadSearchState(this.ds, searchId);
    if (!state) throw new Error(`search ${searchId} is not stored`);
    await this.store.setIfNewer(searchStateKey(searchId), state, SEARCH_STATE_TTL_SECONDS);
    return state;
  }

  /**
   * As publish, but a Redis failure is only logged: the state is in PostgreSQL,
   * and a poll reads it from there when Redis has no copy.
   */
  async publishBestEffort(searchId: string): Promise<SearchState> {
    const state = await loadSearchState(this.ds, searchId);
    if (!state) throw new Error(`search ${searchId} is not stored`);
    try {
      await this.store.setIfNewer(searchStateKey(searchId), state, SEARCH_STATE_TTL_SECONDS);
    } catch (e) {
      this.log.warn({ msg: 'search state not written to Redis; polls read PostgreSQL', search_id: searchId, err: String(e) });
    }
    return state;
  }
}
