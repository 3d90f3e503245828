import { randomBytes, randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { applyCatalog } from '../../apps/ops/src/catalog/apply-catalog';
import { AppConfig, loadConfig, AppName } from '../../libs/config/src';
import { createDataSource, hashApiKey } from '../../libs/persistence/src';
import { MEDIUM_DATABASE_URL, MEDIUM_REDIS_URL } from './medium-env';

/**
 * The medium tier (STYLE.md): each use case against the real PostgreSQL,
 * with no broker (a use case returns what its handler publishes). Its own
 * database and Redis db, reset once per run (medium-setup.ts); each test file
 * uses its own ids and Redis key prefix.
 */
export { MEDIUM_DATABASE_URL, MEDIUM_REDIS_URL };

export async function mediumDataSource(poolSize = 4): Promise<DataSource> {
  // As the services' DatabaseModule connects: prepared statements planned once, generically.
  const ds = createDataSource({ url: MEDIUM_DATABASE_URL, poolSize, timeoutMs: 10_000, genericPlans: true });
  await ds.initialize();
  return ds;
}

/** A Redis client of the medium tier under a key prefix of this test file. */
export function mediumRedis(): Redis {
  return new Redis(MEDIUM_REDIS_URL, { keyPrefix: `medium:${randomBytes(4).toString('hex')}:`, maxRetriesPerRequest: 1 });
}

/** The app's configuration as it would start on the medium state (no catalog cache, so each test sees what it applied). */
export function mediumConfig(app: AppName, extra: Record<string, string> = {}): AppConfig {
  return loadConfig(app, {
    NODE_ENV: 'test',
    DATABASE_URL: MEDIUM_DATABASE_URL,
    REDIS_URL: MEDIUM_REDIS_URL,
    CATALOG_CACHE_MS: '0',
    LOG_LEVEL: 'warn',
    ...extra,
  });
}

/** Applies a catalog file's content as `ops catalog apply` does (validated, one transaction); throws on a refused file. */
export async function applyMediumCatalog(ds: DataSource, catalog: unknown): Promise<void> {
  const outcome = await applyCatalog(ds, catalog);
  if (!outcome.ok) throw new Error(`catalog refused: ${JSON.stringify(outcome.issues)}`);
}

/** An API key of the affiliate (searches and leads reference one), stored as `keys issue` stores it. */
export async function mediumApiKey(ds: DataSource, affiliateId: string): Promise<string> {
  const id = randomUUID();
  await ds.query(`INSERT INTO api_keys (id, affiliate_id, key_hash, key_prefix, limits) VALUES ($1, $2, $3, 'lr_medi', '{}')`, [
    id,
    affiliateId,
    hashApiKey(randomUUID()),
  ]);
  return id;
}
