import { execFileSync } from 'node:child_process';
import { TEST_AMQP_VHOST } from './test-env';

/** After the run: the test vhost and every queue in it are removed, so RabbitMQ keeps nothing of the tests. */
export default async function globalTeardown(): Promise<void> {
  if (process.env.LR_TEST_STATE_READY !== '1') return;
  process.env.LR_TEST_STATE_READY = 'torn-down';
  try {
    execFileSync('rabbitmqctl', ['-q', 'delete_vhost', TEST_AMQP_VHOST], { timeout: 120_000, stdio: 'ignore' });
  } catch {
    /* already gone */
  }
}
