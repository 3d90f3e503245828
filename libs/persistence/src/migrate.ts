import type { PersonKeySecret } from '@lr/domain';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source';
import { ensureDatabase } from './ensure-database';
import { allMigrations } from './migrations';

/**
 * Creates the database if missing and applies every pending migration.
 * Returns the names applied. `secret` is the configuration's person key
 * secret (PERSON_KEY_SECRET): the migration that keys the stored person keys
 * uses it.
 */
export async function migrateDatabase(url: string, secret: PersonKeySecret): Promise<string[]> {
  await ensureDatabase(url);
  const ds = new DataSource({
    ...dataSourceOptions({ url, poolSize: 2, timeoutMs: 10000, applicationName: 'lead-router-migrate' }),
    migrations: allMigrations(secret),
  });
  await ds.initialize();
  try {
    // Several processes may start together: a transaction-level advisory lock serialises them.
    const runner = ds.createQueryRunner();
    await runner.connect();
    try {
      await runner.query('SELECT pg_advisory_lock(hashtext($1))', ['lead-router-migrations']);
      const done = await ds.runMigrations({ transaction: 'each' });
      return done.map((m) => m.name);
    } finally {
      await runner.query('SELECT pg_advisory_unlock(hashtext($1))', ['lead-router-migrations']).catch(() => undefined);
      await runner.release();
    }
  } finally {
    await ds.destroy();
  }
}
