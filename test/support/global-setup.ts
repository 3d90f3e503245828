import { execFileSync } from 'node:child_process';
import { migrateDatabase } from '../../libs/persistence/src/migrate';
import { TEST_AMQP_VHOST, TEST_DATABASE_URL } from './test-env';

/** Once per jest run: the test database exists and is migrated; the test vhost exists. */
export default async function globalSetup(): Promise<void> {
  if (!/test/.test(new URL(TEST_DATABASE_URL).pathname)) {
    throw new Error(`Refusing to run tests against ${TEST_DATABASE_URL}: the database name must say test`);
  }
  await migrateDatabase(TEST_DATABASE_URL);
  ensureVhost(TEST_AMQP_VHOST);
}

function ensureVhost(vhost: string): void {
  const list = execFileSync('rabbitmqctl', ['-q', 'list_vhosts'], { encoding: 'utf8' });
  if (!list.split('\n').map((l) => l.trim()).includes(vhost)) {
    execFileSync('rabbitmqctl', ['-q', 'add_vhost', vhost]);
  }
  execFileSync('rabbitmqctl', ['-q', 'set_permissions', '-p', vhost, 'guest', '.*', '.*', '.*']);
}
