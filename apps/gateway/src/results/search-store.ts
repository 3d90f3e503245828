import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { loadSearchState } from '@lr/persistence';
import { SearchState, searchStateKey } from '@lr/contracts';
import { REDIS_CLIENT } from '@lr/platform';
import { dependency } from '../http/dependency';

/**
 * Reads a search's state for polling: Redis first (hot, written by the
 * search-orchestrator); PostgreSQL when Redis no longer has it (expired or
 * flushed), so losing Redis loses no search.
 */
@Injectable()
export class SearchStore {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async find(searchId: string): Promise<SearchState | undefined> {
    const raw = await dependency('redis', this.config.dependencyTimeoutMs, () => this.redis.get(searchStateKey(searchId)));
    if (raw) return JSON.parse(raw) as SearchState;
    return dependency('postgres', this.config.dependencyTimeoutMs, () => loadSearchState(this.ds, searchId));
  }
}
