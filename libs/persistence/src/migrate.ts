import type { PersonKeySecret } from '@lr/domain';
import { keyStoreUrl } from '../../config/src/master-keys';
import type { DataSourceOptions } from 'typeorm';
import { createDataSource } from './data-source';
import { ensureDatabase } from './ensure-database';
import { KEYSTORE_MIGRATIONS } from './migrations/keystore';
import { allMigrations } from './migrations';

/**
 * Creates the database and its key store (docs/security.md: a database of
 * their own, `<db>_keys` unless named) if missing, and applies every pending
 * migration of each. Returns the names applied. `secret` is the
 * configuration's person key secret (PERSON_KEY_SECRET): the migration that
 * keys the stored person keys uses it.
 */
export async function migrateDatabase(
  url: string,
  secret: PersonKeySecret,
  keyStore: string = keyStoreUrl(url, undefined),
): Promise<string[]> {
  return [...(await migrate(url, allMigrations(secret))), ...(await migrate(keyStore, KEYSTORE_MIGRATIONS))];
}

async function migrate(url: string, migrations: DataSourceOptions['migrations']): Promise<string[]> {
  await ensureDatabase(url);
  const ds = createDataSource({ url, poolSize: 2, timeoutMs: 10000, applicationName: 'lead-router-migrate', migrations });
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
