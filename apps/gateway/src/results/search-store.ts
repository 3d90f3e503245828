import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { loadSearchState } from '@lr/persistence';
import { SearchMeta, searchStateKey } from '@lr/contracts';
import { REDIS_CLIENT } from '@lr/platform';
import { offersJson, SearchStateStore } from '@lr/redis';
import { Dependencies } from '../http/dependencies';

/** A search as a poll answers it: its meta, and its `offers` already as JSON text. */
export interface PollView {
  meta: Omit<SearchMeta, 'order'>;
  offersJson: string;
}

/**
 * Reads a search's state for polling: Redis first (hot, written by the
 * search-orchestrator), with the entries joined as stored, unparsed;
 * PostgreSQL when Redis has no complete copy (expired, flushed, or an entry
 * still on its way), so losing Redis loses no search.
 */
@Injectable()
export class SearchStore {
  private readonly store: SearchStateStore;

  constructor(
    @Inject(REDIS_CLIENT) redis: Redis,
    private readonly ds: DataSource,
    private readonly deps: Dependencies,
  ) {
    this.store = new SearchStateStore(redis);
  }

  async find(searchId: string): Promise<PollView | undefined> {
    const cached = await this.deps.call('redis', () => this.store.read(searchStateKey(searchId)));
    const joined = cached && offersJson(cached);
    if (cached && joined !== undefined) return { meta: cached.meta, offersJson: joined };
    const state = await this.deps.call('postgres', () => loadSearchState(this.ds, searchId));
    if (!state) return undefined;
    const { offers, ...meta } = state;
    return { meta, offersJson: JSON.stringify(offers) };
  }
}
