import { DataSource } from 'typeorm';
import { createDataSource } from '../../libs/persistence/src';
import { migrateDatabase } from '../../libs/persistence/src/migrate';
import { personKeySecret } from '../../libs/domain/src';
import { adminSql } from './admin-sql';
import { BENCH_PERSON_KEY_SECRET } from './bench-state';

/** The URL of a bench's own database on the local PostgreSQL. */
export const benchDatabaseUrl = (name: string): string => `postgres://postgres@127.0.0.1:5432/${name}`;

/** A bench's own database, dropped and migrated from scratch, and a connection to it (statements may take minutes). */
export async function freshBenchDatabase(name: string): Promise<DataSource> {
  await dropBenchDatabase(name);
  await migrateDatabase(benchDatabaseUrl(name), personKeySecret(BENCH_PERSON_KEY_SECRET));
  const ds = createDataSource({ url: benchDatabaseUrl(name), poolSize: 2, timeoutMs: 600_000 });
  await ds.initialize();
  return ds;
}

export function dropBenchDatabase(name: string): Promise<void> {
  return adminSql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
