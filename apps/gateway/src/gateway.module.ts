import { DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { AppConfig, ConfigModule } from '@lr/config';
import { AmqpConnection, MessagingModule, amqpReadiness } from '@lr/messaging';
import { HealthModule, ObservabilityLoggerModule } from '@lr/observability';
import { SearchRepository } from '@lr/persistence';
import { DatabaseModule, KeyStoreModule, postgresReadiness, REDIS_CLIENT, RedisModule, RepositoriesModule } from '@lr/platform';
import { redisReadiness, TokenBucket } from '@lr/redis';
import { SearchStateReader } from '@lr/search-state';
import { AddressBudget } from './auth/address-budget';
import { ApiKeyCache } from './auth/api-key-cache';
import { CatalogChanges } from './auth/catalog-changes';
import { ApiKeyGuard, BuyerKeyGuard } from './auth/api-key.guard';
import { RateLimitGuard } from './auth/rate-limit.guard';
import { PreCheckHandler } from './pre-check/pre-check.handler';
import { PreCheck } from './pre-check/pre-check.usecase';
import { OptOutsHandler } from './opt-outs/opt-outs.handler';
import { RecordOptOut } from './opt-outs/record-opt-out.usecase';
import { ApiExceptionFilter } from './http/api-exception.filter';
import { Dependencies, DependenciesModule } from './http/dependencies';
import { SubmitLeadHandler } from './submit-lead/submit-lead.handler';
import { LeadStatusHandler } from './lead-status/lead-status.handler';
import { LeadStatus } from './lead-status/lead-status.usecase';
import { PendingLeads } from './submit-lead/pending-leads';
import { SubmitLead } from './submit-lead/submit-lead.usecase';
import { PollResultsApi } from './poll-results/poll-results.api';
import { PollResults } from './poll-results/poll-results.usecase';
import { CampaignOwners } from './auth/campaign-owners';
import { StartSearchHandler } from './start-search/start-search.handler';
import { StartSearch } from './start-search/start-search.usecase';
import { IdempotentRequests } from './idempotency/idempotent-requests';
import { ReturnLeadHandler } from './return-lead/return-lead.handler';
import { ReturnLead } from './return-lead/return-lead.usecase';

@Module({})
export class GatewayModule {
  /**
   * The gateway; `document`: as the OpenAPI document scans it (docs/openapi.md), with
   * the poll's description (PollResultsApi), whose route is Fastify's, not Nest's.
   */
  static forRoot(config: AppConfig, { document = false }: { document?: boolean } = {}): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityLoggerModule.forRoot(config, {
          unlogged: [{ path: 'api/v1/engine/results/:svc_lead_id', method: RequestMethod.GET }],
        }),
        DatabaseModule,
        RepositoriesModule,
        KeyStoreModule,
        RedisModule,
        MessagingModule.forRoot(config),
        DependenciesModule,
        HealthModule.forRoot({
          inject: [DataSource, REDIS_CLIENT, AmqpConnection, Dependencies],
          // Ready means the gateway serves: its own checks pass and its probes have seen every dependency answer.
          useFactory: (ds: DataSource, redis: Redis, amqp: AmqpConnection, deps: Dependencies) =>
            [postgresReadiness(ds), redisReadiness(redis), amqpReadiness(amqp)].map((c) => deps.readiness(c)),
        }),
      ],
      controllers: [
        StartSearchHandler,
        ...(document ? [PollResultsApi] : []),
        SubmitLeadHandler,
        LeadStatusHandler,
        PreCheckHandler,
        OptOutsHandler,
        ReturnLeadHandler,
      ],
      providers: [
        CatalogChanges,
        ApiKeyCache,
        ApiKeyGuard,
        BuyerKeyGuard,
        RateLimitGuard,
        AddressBudget,
        {
          provide: SearchStateReader,
          inject: [REDIS_CLIENT, SearchRepository, Dependencies],
          // PostgreSQL, read when Redis has no copy, under the request path's deadline (503 beyond it).
          useFactory: (redis: Redis, searches: SearchRepository, deps: Dependencies) =>
            new SearchStateReader(redis, searches, (dependency, call) => deps.call(dependency, call)),
        },
        PollResults,
        CampaignOwners,
        PendingLeads,
        StartSearch,
        PreCheck,
        RecordOptOut,
        SubmitLead,
        LeadStatus,
        ReturnLead,
        IdempotentRequests,
        { provide: TokenBucket, inject: [REDIS_CLIENT], useFactory: (redis: Redis) => new TokenBucket(redis) },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
      ],
    };
  }
}
