import { DataSource, DataSourceOptions } from 'typeorm';
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
  /**
   * Plan every prepared statement once per connection, with its parameters
   * unknown (`plan_cache_mode = force_generic_plan`), for the services: their
   * statements look rows up by key, where one plan suits every value. Without
   * it PostgreSQL re-plans a statement whose generic plan it estimates dearer
   * (an unnest of unknown length estimates ten rows): over a millisecond per
   * execution for the reservation's facts (docs/performance.md). Left off for
   * the operator's reads (ranges, reports).
   */
  genericPlans?: boolean;
  /** The migrations of the database (default: the main database's; the key store has its own). */
  migrations?: DataSourceOptions['migrations'];
}

export function dataSourceOptions(s: DataSourceSettings): DataSourceOptions {
  const timeout = s.timeoutMs ?? 1500;
  return {
    type: 'postgres',
    url: s.url,
    // No entities: the migrations describe the schema, and each statement's rows are typed from PostgreSQL's description of it.
    entities: [],
    migrations: s.migrations ?? MIGRATIONS,
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
      // A connection is replaced after an hour: the statements it prepared for past days' partitions (perDay) go with it.
      maxLifetimeSeconds: 3600,
      keepAlive: true,
      ...(s.genericPlans ? { options: '-c plan_cache_mode=force_generic_plan' } : {}),
    },
  };
}

export function createDataSource(s: DataSourceSettings): DataSource {
  return new DataSource(dataSourceOptions(s));
}
