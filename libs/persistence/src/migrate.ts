import { createDataSource } from './data-source';
import { ensureDatabase } from './ensure-database';

/** Creates the database if missing and applies every pending migration. Returns the names applied. */
export async function migrateDatabase(url: string): Promise<string[]> {
  await ensureDatabase(url);
  const ds = createDataSource({ url, poolSize: 2, timeoutMs: 10000, applicationName: 'lead-router-migrate' });
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
