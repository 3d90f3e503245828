import { execFileSync } from 'node:child_process';
import Redis from 'ioredis';
import { keyStoreUrl } from '../../libs/config/src/master-keys';
import { migrateDatabase } from '../../libs/persistence/src/migrate';
import { dropDatabase } from './test-database';
import { TEST_AMQP_VHOST, TEST_DATABASE_URL, TEST_REDIS_URL } from './test-env';
import { TEST_PERSON_KEY_SECRET } from './person-key';

/**
 * Once per jest run (both the integration and the e2e project name this file;
 * the marker keeps the second call a no-op): a clean test state. The test
 * database is dropped and migrated from scratch, the test Redis db (any index
 * but 0, the running system's) is flushed, and the test vhost is recreated
 * empty, so nothing a previous run left behind (quorum queues above all) slows
 * this one down. Only test-named state is touched.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.LR_TEST_STATE_READY === '1') return;
  const dbName = new URL(TEST_DATABASE_URL).pathname.slice(1);
  if (!/test/.test(dbName) || !/test/.test(TEST_AMQP_VHOST) || !/\/([1-9]|1[0-5])$/.test(TEST_REDIS_URL)) {
    throw new Error('Refusing to reset state whose name does not say test');
  }
  await dropDatabase(TEST_DATABASE_URL);
  await dropDatabase(keyStoreUrl(TEST_DATABASE_URL, undefined));
  await migrateDatabase(TEST_DATABASE_URL, TEST_PERSON_KEY_SECRET);
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  await redis.flushdb();
  redis.disconnect();
  resetVhost(TEST_AMQP_VHOST);
  process.env.LR_TEST_STATE_READY = '1';
}

function rabbitmqctl(...args: string[]): string {
  return execFileSync('rabbitmqctl', ['-q', ...args], { encoding: 'utf8', timeout: 120_000 });
}

export function resetVhost(vhost: string): void {
  const vhosts = rabbitmqctl('list_vhosts')
    .split('\n')
    .map((l) => l.trim());
  if (vhosts.includes(vhost)) rabbitmqctl('delete_vhost', vhost);
  rabbitmqctl('add_vhost', vhost);
  rabbitmqctl('set_permissions', '-p', vhost, 'guest', '.*', '.*', '.*');
}
