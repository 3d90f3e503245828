import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { dataSourceOptions, pingDatabase } from '@lr/persistence';
import type { ReadinessCheck } from '@lr/observability';
import { PartitionKeeper } from '@lr/jobs';

/**
 * A worker's handlers queue for the pool's connections this long. Under load (a
 * prefetch of 64 on a pool of 10) a wait of more than the dependency timeout is
 * normal; failing then would retry the message, and a submit failing after its
 * buyer answered is decided as interrupted (docs/observability.md, graceful shutdown).
 */
const WORKER_POOL_WAIT_MS = 15_000;

/**
 * The process's PostgreSQL DataSource (TypeORM), with the fail-fast timeouts of
 * dataSourceOptions (the gateway answers 503 beyond them; workers wait longer
 * for a pooled connection). At start-up it keeps retrying until PostgreSQL answers.
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions({
          url: config.database.url,
          timeoutMs: config.dependencyTimeoutMs,
          applicationName: config.app,
          poolSize: config.app === 'gateway' ? 20 : 10,
          poolWaitMs: config.app === 'gateway' ? undefined : Math.max(config.dependencyTimeoutMs, WORKER_POOL_WAIT_MS),
          genericPlans: true,
        }),
        retryAttempts: Number.MAX_SAFE_INTEGER,
        retryDelay: 1000,
      }),
    }),
  ],
  providers: [PartitionKeeper],
  exports: [TypeOrmModule],
})
export class DatabaseModule {}

export function postgresReadiness(ds: DataSource): ReadinessCheck {
  return {
    name: 'postgres',
    check: () => pingDatabase(ds),
  };
}
