import { AmqpConnection, DeadLetterDepthGauge, PermanentError, QueueDepthGauge, messagingMetrics, queuesOf } from '@lr/messaging';
import { metricsRegistry } from '@lr/observability';
import { TcpProxy } from '../../support/tcp-proxy';
import { TEST_AMQP_VHOST, testConfig } from '../../support/test-env';
import { Harness, messagingTestSetup, queueDepth, sleep, waitFor, withAdminChannel } from './support';

const CONSUMER = 'delivery';
const POISON = 'test.poison.v1';
const WORK = 'test.work.v1';
const { config, topology } = messagingTestSetup(CONSUMER, [
  { type: POISON, kind: 'command', consumers: [CONSUMER] },
  { type: WORK, kind: 'command', consumers: [CONSUMER] },
]);
const queues = queuesOf(topology, CONSUMER);

/** The gauge's current value for this file's DLQ, as /metrics would show it. */
async function gaugeValue(): Promise<number | undefined> {
  const metric = await messagingMetrics.dlqDepth.get();
  return metric.values.find((v) => v.labels.queue === queues.dlq)?.value;
}

/** messaging_queue_depth of this file's consumer queue. */
async function backlogValue(): Promise<number | undefined> {
  const metric = await messagingMetrics.queueDepth.get();
  return metric.values.find((v) => v.labels.queue === queues.queue)?.value;
}

describe('messaging: the gauges messaging_dlq_depth{queue} and messaging_queue_depth{queue}', () => {
  const harness = new Harness(config, topology);
  const proxy = new TcpProxy(5672);
  let amqp: AmqpConnection;
  let viaProxy: AmqpConnection;

  beforeAll(async () => {
    amqp = await harness.connection();
    await proxy.start();
    const proxied = testConfig('delivery', config.amqp.prefix.slice(1), {
      AMQP_URL: `amqp://guest:guest@127.0.0.1:${proxy.port}/${TEST_AMQP_VHOST}`,
      AMQP_RETRY_DELAYS_MS: config.amqp.retryDelaysMs.join(','),
    });
    viaProxy = await harness.connection({ reconnectDelayMs: 200 }, proxied);
  });

  afterAll(async () => {
    await proxy.close();
    await harness.dispose();
  });

  it('every worker transport keeps its own DLQ’s depth current', async () => {
    const transport = harness.transport(amqp, CONSUMER);
    transport.addHandler(POISON, async () => {
      throw new PermanentError('cannot be handled');
    });
    await transport.start();
    await waitFor(async () => (await gaugeValue()) === 0, 5000, 'the first reading at start');
    await amqp.publish(POISON, { n: 1 });
    await waitFor(async () => (await queueDepth(queues.dlq)) === 1, 5000, 'the poison message in the DLQ');
    // The transport reads every 15 s; a reading on demand shows the same thing the next tick will.
    const gauge = new DeadLetterDepthGauge(amqp, queues.dlq);
    expect(await gauge.refresh()).toBe(1);
    expect(await metricsRegistry.getSingleMetricAsString('messaging_dlq_depth')).toMatch(
      new RegExp(`messaging_dlq_depth\\{queue="${queues.dlq}"[^}]*\\} 1`),
    );
    await transport.close();
  });

  it('reads periodically, and neither throws nor crashes while the broker is away; the last value stays', async () => {
    const gauge = new DeadLetterDepthGauge(viaProxy, queues.dlq, 100);
    gauge.start();
    await withAdminChannel(async (ch) => {
      ch.sendToQueue(queues.dlq, Buffer.from('{}'), { messageId: 'parked-2', type: POISON, persistent: true });
      await sleep(50);
    });
    await waitFor(async () => (await gaugeValue()) === 2, 5000, 'the periodic reading of 2');

    await proxy.cut();
    await waitFor(() => !viaProxy.isConnected(), 5000, 'the proxied connection to drop');
    expect(await gauge.refresh()).toBeUndefined();
    await sleep(400); // several ticks with the broker away
    expect(await gaugeValue()).toBe(2);

    await withAdminChannel(async (ch) => {
      ch.sendToQueue(queues.dlq, Buffer.from('{}'), { messageId: 'parked-3', type: POISON, persistent: true });
      await sleep(50);
    });
    await proxy.restore();
    await waitFor(async () => (await gaugeValue()) === 3, 10_000, 'a reading after the broker came back');
    await gauge.stop();
  });

  it('the backlog of the worker’s own queue: what waits there, read by its transport from the start', async () => {
    for (const n of [1, 2, 3]) await amqp.publish(WORK, { n });
    await waitFor(async () => (await queueDepth(queues.queue)) === 3, 5000, 'three messages waiting, no consumer');
    const gauge = new QueueDepthGauge(amqp, queues.queue, messagingMetrics.queueDepth);
    expect(await gauge.refresh()).toBe(3);
    expect(await metricsRegistry.getSingleMetricAsString('messaging_queue_depth')).toMatch(
      new RegExp(`messaging_queue_depth\\{queue="${queues.queue}"[^}]*\\} 3`),
    );

    const handled: number[] = [];
    const transport = harness.transport(amqp, CONSUMER);
    transport.addHandler(WORK, async (payload: { n: number }) => {
      handled.push(payload.n);
    });
    await transport.start();
    await waitFor(async () => handled.length === 3, 5000, 'the backlog handled');
    await waitFor(async () => (await queueDepth(queues.queue)) === 0, 5000, 'the queue empty');
    // The transport read its queue when it started; a reading now shows what the next tick will.
    expect(await backlogValue()).toEqual(expect.any(Number));
    expect(await gauge.refresh()).toBe(0);
    expect(await backlogValue()).toBe(0);
    await transport.close();
  });

  it('a DLQ that does not exist is no reading, and the connection survives it', async () => {
    const gauge = new DeadLetterDepthGauge(amqp, `${config.amqp.prefix}.nobody.dlq`);
    expect(await gauge.refresh()).toBeUndefined();
    expect(amqp.isConnected()).toBe(true);
    expect(await new DeadLetterDepthGauge(amqp, queues.dlq).refresh()).toBe(3);
  });
});
