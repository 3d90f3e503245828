import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import type { SearchMeta } from '@lr/contracts';
import type { SearchRepository } from '@lr/persistence';
import { searchStateTtlSeconds } from './search-state';
import { SearchStateStore } from './search-state-store';

/** An entry of a search's state: a result id and the entry's JSON as its maker serialized it. */
export interface StateEntry {
  id: string;
  json: Buffer;
  /** Until when the result can be submitted, when the writer knows it: the state is kept that long. */
  expiresAt?: Date;
}

/**
 * Publishes a search's state to Redis (what polls read); PostgreSQL is the
 * truth. A change known in memory writes only its new entries and the meta
 * (SearchStateStore); after a redelivery or a failed write the whole state is
 * rebuilt from PostgreSQL (SearchRepository.state). A plain class: the apps
 * provide it over their Redis client and repository.
 */
export class SearchStatePublisher {
  private readonly log = new Logger(SearchStatePublisher.name);
  private readonly store: SearchStateStore;

  constructor(
    redis: Redis,
    private readonly searches: SearchRepository,
  ) {
    this.store = new SearchStateStore(redis);
  }

  /**
   * Writes a committed change: the new entries and the meta of its version,
   * kept while the search is open and its entries can be submitted
   * (searchStateTtlSeconds). Throws when Redis fails.
   */
  async write(meta: SearchMeta, added: readonly StateEntry[]): Promise<void> {
    const expiries = added.flatMap((e) => (e.expiresAt ? [e.expiresAt] : []));
    await this.store.write(meta, added, searchStateTtlSeconds(meta.closesAt, expiries));
  }

  /** As write, but a Redis failure is only logged (polls read PostgreSQL when Redis has no copy). True when written. */
  async writeBestEffort(meta: SearchMeta, added: readonly StateEntry[]): Promise<boolean> {
    try {
      await this.write(meta, added);
      return true;
    } catch (e) {
      this.log.warn({ msg: 'search state not written to Redis; polls read PostgreSQL', search_id: meta.searchId, err: String(e) });
      return false;
    }
  }

  /** Rebuilds the whole state from PostgreSQL and writes it. Throws when Redis fails (unless bestEffort). */
  async resync(searchId: string, bestEffort = false): Promise<{ meta: SearchMeta; entries: Buffer[] }> {
    const state = await this.searches.state(searchId);
    if (!state) throw new Error(`search ${searchId} is not stored`);
    const entries = state.meta.order.map((id, i) => ({ id, json: state.entries[i] }));
    if (bestEffort) await this.writeBestEffort(state.meta, entries);
    else await this.write(state.meta, entries);
    return state;
  }
}
