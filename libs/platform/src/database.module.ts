import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { dataSourceOptions } from '@lr/persistence';
import type { ReadinessCheck } from '@lr/observability';

/**
 * The process's PostgreSQL DataSource (TypeORM), with the fail-fast timeouts of
 * dataSourceOptions. At start-up it keeps retrying until PostgreSQL answers.
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
        }),
        retryAttempts: Number.MAX_SAFE_INTEGER,
        retryDelay: 1000,
      }),
    }),
  ],
  exports: [TypeOrmModule],
})
export class DatabaseModule {}

export function postgresReadiness(ds: DataSource): ReadinessCheck {
  return {
    name: 'postgres',
    async check(): Promise<void> {
      await ds.query('SELECT 1');
    },
  };
}
