import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { loadSearchState } from '@lr/persistence';
import { SearchMeta } from '@lr/contracts';
import { CachedSearch, offersJson } from '@lr/redis';
import { Dependencies } from '../http/dependencies';

/** A search as a poll answers it: its meta, and its `offers` already as JSON text. */
export interface PollView {
  meta: Omit<SearchMeta, 'order'>;
  offersJson: string;
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
  constructor(
    private readonly ds: DataSource,
    private readonly deps: Dependencies,
  ) {}

  /** The view from what Redis held for the search (read by the caller), or from PostgreSQL when that is not a complete copy. */
  async complete(searchId: string, cached: CachedSearch | undefined): Promise<PollView | undefined> {
    const joined = cached && offersJson(cached);
    if (cached && joined !== undefined) return { meta: cached.meta, offersJson: joined };
    const state = await this.deps.call('postgres', () => loadSearchState(this.ds, searchId));
    if (!state) return undefined;
    const { offers, ...meta } = state;
    return { meta, offersJson: JSON.stringify(offers) };
  }
}
