import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { createRedisClient } from '@lr/redis';

export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/** The process's Redis client (fail-fast, see createRedisClient), closed on shutdown. */
@Global()
@Module({
  providers: [{ provide: REDIS_CLIENT, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createRedisClient(config) }],
  exports: [REDIS_CLIENT],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }
}
