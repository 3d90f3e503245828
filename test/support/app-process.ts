// The generic launcher lives in bench/support (the build includes bench/, not
// test/), so the benchmarks start the apps exactly as the end-to-end tests do.
import { stopAllApps } from '../../bench/support/app-process';

export { freePort, startApp, stopAllApps } from '../../bench/support/app-process';
export type { RunningApp } from '../../bench/support/app-process';

/**
 * Stops every app this test file started, then deletes the RabbitMQ queues and
 * exchanges of its prefix (`env.AMQP_PREFIX`), so a test run leaves no quorum
 * queues behind in the test vhost.
 */
export async function stopAppsAndTopology(env: Record<string, string>): Promise<void> {
  await stopAllApps();
  const { topologyFor } = await import('../../libs/messaging/src/topology');
  const { loadConfig } = await import('../../libs/config/src');
  const { deleteTopology } = await import('../integration/messaging/support');
  await deleteTopology(topologyFor(loadConfig('gateway', env)));
}
