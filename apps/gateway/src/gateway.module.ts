import { DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { AppConfig, ConfigModule } from '@lr/config';
import { AmqpConnection, MessagingModule, amqpReadiness } from '@lr/messaging';
import { HealthModule, MetricsModule, ObservabilityLoggerModule } from '@lr/observability';
import { DatabaseModule, postgresReadiness, REDIS_CLIENT, RedisModule } from '@lr/platform';
import { redisReadiness, TokenBucket } from '@lr/redis';
import { ApiKeyCache } from './auth/api-key-cache';
import { CatalogChanges } from './auth/catalog-changes';
import { ApiKeyGuard } from './auth/api-key.guard';
import { RateLimitGuard } from './auth/rate-limit.guard';
import { DupeCheckController } from './dupe-check/dupe-check.controller';
import { ApiExceptionFilter } from './http/api-exception.filter';
import { Dependencies, DependenciesModule } from './http/dependencies';
import { LeadsController } from './leads/leads.controller';
import { PendingLeads } from './leads/pending-leads';
import { ResultsController } from './results/results.controller';
import { CampaignOwners } from './results/campaign-owners';
import { SearchStore } from './results/search-store';
import { SearchController } from './search/search.controller';

@Module({})
export class GatewayModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityLoggerModule.forRoot(config, { unlogged: [{ path: 'api/v1/engine/results/:svc_lead_id', method: RequestMethod.GET }] }),
        DatabaseModule,
        RedisModule,
        MessagingModule.forRoot(config),
        MetricsModule,
        DependenciesModule,
        HealthModule.forRoot({
          inject: [DataSource, REDIS_CLIENT, AmqpConnection, Dependencies],
          // Ready means the gateway serves: its own checks pass and its probes have seen every dependency answer.
          useFactory: (ds: DataSource, redis: Redis, amqp: AmqpConnection, deps: Dependencies) =>
            [postgresReadiness(ds), redisReadiness(redis), amqpReadiness(amqp)].map((c) => deps.readiness(c)),
        }),
      ],
      controllers: [SearchController, ResultsController, LeadsController, DupeCheckController],
      providers: [
        CatalogChanges,
        ApiKeyCache,
        ApiKeyGuard,
        RateLimitGuard,
        SearchStore,
        CampaignOwners,
        PendingLeads,
        { provide: TokenBucket, inject: [REDIS_CLIENT], useFactory: (redis: Redis) => new TokenBucket(redis) },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
      ],
    };
  }
}
