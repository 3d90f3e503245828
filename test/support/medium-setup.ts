import Redis from 'ioredis';
import { keyStoreUrl } from '../../libs/config/src/master-keys';
import { migrateDatabase } from '../../libs/persistence/src/migrate';
import { MEDIUM_DATABASE_URL, MEDIUM_REDIS_URL } from './medium-env';
import { dropDatabase } from './test-database';
import { TEST_PERSON_KEY_SECRET } from './person-key';

/**
 * Once per jest run, for the medium tier (use cases on the real PostgreSQL,
 * no broker): its own database, dropped and migrated from scratch, and its own
 * Redis db, flushed. Nothing the other tiers or a running system use.
 */
export default async function mediumSetup(): Promise<void> {
  const dbName = new URL(MEDIUM_DATABASE_URL).pathname.slice(1);
  if (!/medium/.test(dbName) || !/\/([1-9]|1[0-5])$/.test(MEDIUM_REDIS_URL))
    throw new Error('Refusing to reset state whose name does not say medium');
  await dropDatabase(MEDIUM_DATABASE_URL, 'medium');
  await dropDatabase(keyStoreUrl(MEDIUM_DATABASE_URL, undefined), 'medium');
  await migrateDatabase(MEDIUM_DATABASE_URL, TEST_PERSON_KEY_SECRET);
  const redis = new Redis(MEDIUM_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  await redis.flushdb();
  redis.disconnect();
}
