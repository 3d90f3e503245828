import { Inject, Injectable, Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@lr/config';
import {
  MAX_ACCEPTED_SUBMISSIONS,
  SEARCH_STATE_TTL_SECONDS,
  SearchAnswerV1,
  SearchRequestedV1,
  searchStateKey,
} from '@lr/contracts';
import { counter } from '@lr/observability';
import { loadSearchState, runOnce } from '@lr/persistence';
import { REDIS_CLIENT } from '@lr/platform';

export const CONSUMER = 'search-orchestrator';

const expired = counter('search_requests_expired_total', 'Search requests dropped because the gateway had stopped waiting');

/**
 * A search's life, first step: store the search and its lead (tracking, consumer
 * IP, consent certificates, test flag) in PostgreSQL exactly once, publish its
 * hot state to Redis for polling, and answer the first results.
 */
@Injectable()
export class SearchStartService {
  private readonly log = new Logger(SearchStartService.name);

  constructor(
    private readonly ds: DataSource,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async start(msg: SearchRequestedV1, meta: { messageId: string; type: string }): Promise<SearchAnswerV1 | null> {
    if (Date.parse(msg.replyBy) < Date.now()) {
      // The gateway already answered 503 and the affiliate will search again: storing it now would leave an orphan search.
      this.log.warn({ msg: 'search request expired before it was handled; dropped', search_id: msg.searchId, reply_by: msg.replyBy });
      expired.inc();
      return null;
    }
    const createdAt = new Date(msg.requestedAt);
    const closesAt = new Date(createdAt.getTime() + this.config.search.openSeconds * 1000);
    await runOnce(this.ds, CONSUMER, meta, (em) => this.insertSearch(em, msg, createdAt, closesAt));
    const state = await loadSearchState(this.ds, msg.searchId);
    if (!state) throw new Error(`search ${msg.searchId} was not stored`);
    await this.redis.set(searchStateKey(msg.searchId), JSON.stringify(state), 'EX', SEARCH_STATE_TTL_SECONDS);
    return {
      searchId: state.searchId,
      processingDone: state.processingDone,
      acceptedCount: state.acceptedCount,
      maxAcceptedSubmissions: MAX_ACCEPTED_SUBMISSIONS,
      trueExclusiveAccepted: state.trueExclusiveAccepted,
      offers: state.offers,
    };
  }

  private async insertSearch(em: EntityManager, msg: SearchRequestedV1, createdAt: Date, closesAt: Date): Promise<void> {
    // No offers are searched yet (the search issue adds own and partner offers), so the search is done at once.
    await em.query(
      `INSERT INTO searches (id, affiliate_id, campaign_id, api_key_id, is_test, lead, tracking, consumer_ip, ip_source,
                             tcpa_consent, form_cert_url, universal_lead_cert, created_at, closes_at, processing_done_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $13)
       ON CONFLICT (id) DO NOTHING`,
      [
        msg.searchId, msg.affiliateId, msg.campaignId, msg.apiKeyId, msg.isTest, JSON.stringify(msg.lead),
        JSON.stringify(msg.tracking), msg.consumerIp, msg.ipSource, msg.tcpaConsent, msg.formCertUrl,
        msg.universalLeadCert, createdAt, closesAt,
      ],
    );
  }
}
