import { DynamicModule, Module } from '@nestjs/common';
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
import { Dependencies } from './http/dependencies';
import { LeadsController } from './leads/leads.controller';
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
        ObservabilityLoggerModule.forRoot(config),
        DatabaseModule,
        RedisModule,
        MessagingModule.forRoot(config),
        MetricsModule,
        HealthModule.forRoot({
          inject: [DataSource, REDIS_CLIENT, AmqpConnection],
          useFactory: (ds: DataSource, redis: Redis, amqp: AmqpConnection) => [
            postgresReadiness(ds),
            redisReadiness(redis),
            amqpReadiness(amqp),
          ],
        }),
      ],
      controllers: [SearchController, ResultsController, LeadsController, DupeCheckController],
      providers: [
        Dependencies,
        CatalogChanges,
        ApiKeyCache,
        ApiKeyGuard,
        RateLimitGuard,
        SearchStore,
        CampaignOwners,
        { provide: TokenBucket, inject: [REDIS_CLIENT], useFactory: (redis: Redis) => new TokenBucket(redis) },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
      ],
    };
  }
}
