import type Redis from 'ioredis';
import type { SearchAnswerState } from '@lr/contracts';
import type { SearchRepository } from '@lr/persistence';
import { CachedSearch, orderedEntries, readSearchState } from './search-state-store';

/** A search as its answer shows it: its meta, and its entries already as JSON (bytes), best first. */
export interface SearchView {
  meta: SearchAnswerState;
  entries: Buffer[];
}

/**
 * How the reader's caller runs a call to Redis or PostgreSQL (the gateway: under
 * a deadline, a failure as 503); by default the call as it is.
 */
export type DependencyCall = <T>(dependency: 'redis' | 'postgres', call: () => Promise<T>) => Promise<T>;
const asItIs: DependencyCall = (_dependency, call) => call();

/**
 * A search's state as polls read it: what Redis holds (hot, written by the
 * search-orchestrator; the gateway reads it in the rate limit's round trip),
 * with the entries joined as stored, unparsed; PostgreSQL
 * (SearchRepository.state) when Redis has no complete copy (expired,
 * flushed, failed, or an entry still on its way), so losing Redis loses no
 * search. A plain class: the apps provide it over their Redis client and
 * repository.
 */
export class SearchStateReader {
  constructor(
    private readonly redis: Redis,
    private readonly searches: SearchRepository,
    private readonly call: DependencyCall = asItIs,
  ) {}

  /**
   * What Redis holds of the search (one HGETALL, sent at once on the client:
   * the rate limit writes it right behind its token bucket, one round trip for
   * both); undefined when it holds no complete state. Not run through `call`:
   * the caller that sends it decides how a failure answers.
   */
  cached(searchId: string): Promise<CachedSearch | undefined> {
    return readSearchState(this.redis, searchId);
  }

  /** The view from what Redis held for the search (read by the caller; undefined when it had none or failed), else from PostgreSQL. */
  async complete(searchId: string, cached: CachedSearch | undefined): Promise<SearchView | undefined> {
    const entries = cached && orderedEntries(cached);
    if (cached && entries !== undefined) return { meta: cached.meta, entries };
    const state = await this.call('postgres', () => this.searches.state(searchId));
    return state && { meta: state.meta, entries: state.entries };
  }
}
