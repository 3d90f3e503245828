import { DataSource, DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

export interface DataSourceSettings {
  url: string;
  /** Pool size per process. */
  poolSize?: number;
  /** A query or a connection attempt that takes longer fails, so callers answer 503 instead of hanging. */
  timeoutMs?: number;
  /**
   * How long a query may wait for a connection of the pool (connecting included);
   * default timeoutMs. Workers wait longer: a busy pool is backpressure, not an outage.
   */
  poolWaitMs?: number;
  applicationName?: string;
}

export function dataSourceOptions(s: DataSourceSettings): DataSourceOptions {
  const timeout = s.timeoutMs ?? 1500;
  return {
    type: 'postgres',
    url: s.url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    // Generated uuids use the built-in gen_random_uuid() (PostgreSQL 13+); no extension is installed at connect.
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    migrationsRun: false,
    logging: false,
    applicationName: s.applicationName ?? 'lead-router',
    poolSize: s.poolSize ?? 10,
    connectTimeoutMS: s.poolWaitMs ?? timeout,
    extra: {
      connectionTimeoutMillis: s.poolWaitMs ?? timeout,
      query_timeout: timeout * 4,
      statement_timeout: timeout * 4,
      idleTimeoutMillis: 30000,
      keepAlive: true,
    },
  };
}

export function createDataSource(s: DataSourceSettings): DataSource {
  return new DataSource(dataSourceOptions(s));
}
