import { DynamicModule, Module, Provider, Type } from '@nestjs/common';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { AppConfig, AppName, ConfigModule, loadConfig } from '@lr/config';
import { AmqpConnection, AmqpTransport, ConsumerName, MessagingModule, amqpReadiness, startAmqpConsumer } from '@lr/messaging';
import { HealthModule, ObservabilityLoggerModule, READINESS_CHECKS, ReadinessCheck, startHttpApp } from '@lr/observability';
import { redisReadiness } from '@lr/redis';
import { DatabaseModule, postgresReadiness } from './database.module';
import { KeyStoreModule } from './key-store.module';
import { RepositoriesModule } from './repositories.module';
import { REDIS_CLIENT, RedisModule } from './redis.module';

export interface WorkerSpec {
  app: AppName & ConsumerName;
  /** Message handler controllers (@HandleMessage / @HandleEvent). */
  controllers?: Type<unknown>[];
  providers?: Provider[];
  /** Whether the worker uses Redis (adds the client and its readiness check). */
  redis?: boolean;
  /** Whether the worker opens or seals contact data (adds the key store and its ContactSealer: docs/security.md). */
  keyStore?: boolean;
}

/** The module of a worker: config, JSON logs, PostgreSQL, (Redis), RabbitMQ consumer, health and metrics. */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig, spec: WorkerSpec): DynamicModule {
    const useRedis = spec.redis ?? false;
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityLoggerModule.forRoot(config),
        DatabaseModule,
        RepositoriesModule,
        ...(useRedis ? [RedisModule] : []),
        ...(spec.keyStore ? [KeyStoreModule] : []),
        MessagingModule.forRoot(config, { consumer: spec.app }),
        HealthModule.forRoot({
          inject: [DataSource, AmqpConnection, ...(useRedis ? [REDIS_CLIENT] : [])],
          useFactory: (ds: DataSource, amqp: AmqpConnection, redis?: Redis): ReadinessCheck[] => [
            postgresReadiness(ds),
            amqpReadiness(amqp),
            ...(redis ? [redisReadiness(redis)] : []),
          ],
        }),
      ],
      controllers: spec.controllers ?? [],
      providers: spec.providers ?? [],
    };
  }
}

/**
 * main() of a worker: validated config, the management port (HTTP_PORT: health and metrics; a worker serves no API), then the
 * queue consumer, which pauses while one of the worker's dependencies (its
 * readiness checks) is down. Exits non-zero with a JSON line if start-up fails.
 */
export function runWorker(spec: WorkerSpec): void {
  const start = async () => {
    const config = loadConfig(spec.app);
    const { app } = await startHttpApp(WorkerModule.forRoot(config, spec), config, { api: false });
    app.get(AmqpTransport).pauseWhileDown(app.get<ReadinessCheck[]>(READINESS_CHECKS));
    await startAmqpConsumer(app);
  };
  start().catch((e: unknown) => {
    console.error(JSON.stringify({ level: 'fatal', app: spec.app, msg: 'start-up failed', err: String((e as Error)?.stack ?? e) }));
    process.exit(1);
  });
}
