import { Inject, Injectable, Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { SEARCH_STATE_TTL_SECONDS, SearchMeta, SearchState, searchStateKey } from '@lr/contracts';
import { loadSearchState } from '@lr/persistence';
import { REDIS_CLIENT } from './redis.module';
import { SearchStateStore } from '@lr/redis';

/**
 * Publishes a search's state to Redis (what polls read); PostgreSQL is the
 * truth. A change known in memory writes only its new entries and the meta
 * (libs/redis SearchStateStore); after a redelivery or a failed write the whole
 * state is rebuilt from PostgreSQL.
 */
@Injectable()
export class SearchStatePublisher {
  private readonly log = new Logger(SearchStatePublisher.name);
  private readonly store: SearchStateStore;

  constructor(
    private readonly ds: DataSource,
    @Inject(REDIS_CLIENT) redis: Redis,
  ) {
    this.store = new SearchStateStore(redis);
  }

  /** Writes a committed change: the new entries and the meta of its version. Throws when Redis fails. */
  async write(meta: SearchMeta, added: Array<{ id: string; entry: unknown }>): Promise<void> {
    await this.store.write(searchStateKey(meta.searchId), meta, added, SEARCH_STATE_TTL_SECONDS);
  }

  /** As write, but a Redis failure is only logged (polls read PostgreSQL when Redis has no copy). True when written. */
  async writeBestEffort(meta: SearchMeta, added: Array<{ id: string; entry: unknown }>): Promise<boolean> {
    try {
      await this.write(meta, added);
      return true;
    } catch (e) {
      this.log.warn({ msg: 'search state not written to Redis; polls read PostgreSQL', search_id: meta.searchId, err: String(e) });
      return false;
    }
  }

  /** Rebuilds the whole state from PostgreSQL and writes it. Throws when Redis fails (unless bestEffort). */
  async resync(searchId: string, bestEffort = false): Promise<SearchState> {
    const state = await loadSearchState(this.ds, searchId);
    if (!state) throw new Error(`search ${searchId} is not stored`);
    const { offers, ...rest } = state;
    const meta: SearchMeta = { ...rest, order: offers.map((o) => o.svc_result_id) };
    const entries = offers.map((o) => ({ id: o.svc_result_id, entry: o }));
    if (bestEffort) await this.writeBestEffort(meta, entries);
    else await this.write(meta, entries);
    return state;
  }
}
