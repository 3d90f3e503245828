import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { SearchState, searchStateKey } from '@lr/contracts';
import { REDIS_CLIENT } from '../infra/tokens';
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
    return dependency('postgres', this.config.dependencyTimeoutMs, () => this.fromDatabase(searchId));
  }

  private async fromDatabase(searchId: string): Promise<SearchState | undefined> {
    const rows: Array<Record<string, unknown>> = await this.ds.query(
      `SELECT s.id, s.affiliate_id, s.campaign_id, s.is_test, s.created_at, s.closes_at, s.processing_done_at,
              s.accepted_count, s.true_exclusive_accepted,
              COALESCE((SELECT json_agg(r.entry ORDER BY r.rank) FROM results r WHERE r.search_id = s.id), '[]') AS offers
         FROM searches s WHERE s.id = $1`,
      [searchId],
    );
    const s = rows[0];
    if (!s) return undefined;
    return {
      searchId: String(s.id),
      affiliateId: String(s.affiliate_id),
      campaignId: String(s.campaign_id),
      isTest: Boolean(s.is_test),
      createdAt: new Date(s.created_at as string).toISOString(),
      closesAt: new Date(s.closes_at as string).toISOString(),
      processingDone: s.processing_done_at !== null,
      acceptedCount: Number(s.accepted_count),
      trueExclusiveAccepted: Boolean(s.true_exclusive_accepted),
      offers: s.offers as unknown[],
    };
  }
}
