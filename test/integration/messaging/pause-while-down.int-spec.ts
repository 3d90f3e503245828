import type { MessageMeta } from '@lr/contracts';
import { AmqpConnection, AmqpContext, AmqpTransport, HEADERS, queuesOf } from '@lr/messaging';
import { metricsRegistry, ReadinessCheck } from '@lr/observability';
import { drainQueue, Harness, messagingTestSetup, queueDepth, sleep, waitFor } from './support';

const CONSUMER = 'delivery';
const TYPE = 'test.needs-the-database.v1';
const POISON = 'test.poison.v1';
// Two tries only: an outage that burned tries would dead-letter at once.
const routes = [TYPE, POISON].map((type) => ({ type, kind: 'command' as const, consumers: [CONSUMER] }));
const { config, topology } = messagingTestSetup(CONSUMER, routes, {
  AMQP_MAX_ATTEMPTS: '2',
  AMQP_RETRY_DELAYS_MS: '100',
});
const queues = queuesOf(topology, CONSUMER);

/**
 * A worker whose dependency is down: the handler's failures are the outage's,
 * not the messages'. They go back without counting a try, the consumer stops
 * taking messages while the dependency is down, and once it is back every
 * message is handled; none is dead-lettered, however long the outage.
 */
describe('messaging: a worker pauses while one of its dependencies is down', () => {
  const harness = new Harness(config, topology);
  let amqp: AmqpConnection;
  let transport: AmqpTransport;
  let databaseUp = true;
  const database: ReadinessCheck = {
    name: 'postgres',
    check: async () => {
      if (!databaseUp) throw new Error('connect ECONNREFUSED');
    },
  };
  const runs: Array<{ meta: MessageMeta; up: boolean; at: number }> = [];
  const handled: string[] = [];
  let poisonTries = 0;

  beforeAll(async () => {
    amqp = await harness.connection();
    transport = harness.transport(amqp, CONSUMER);
    transport.pauseWhileDown([database]);
    transport.addHandler(TYPE, async (_: unknown, ctx: AmqpContext) => {
      runs.push({ meta: ctx.getMeta(), up: databaseUp, at: Date.now() });
      if (!databaseUp) throw new Error('Connection terminated unexpectedly');
      handled.push(ctx.getMeta().messageId);
    });
    transport.addHandler(POISON, async (_: unknown, ctx: AmqpContext) => {
      poisonTries++;
      throw new Error(`bad message, try ${ctx.getMeta().attempt}`);
    });
    await transport.start();
  });

  afterAll(() => harness.dispose());

  it('puts messages back without counting tries, takes no more while down, and handles them all once it is back', async () => {
    databaseUp = false;
    const ids = await Promise.all([1, 2, 3, 4, 5].map((n) => amqp.publish(TYPE, { n })));
    await waitFor(() => runs.length > 0, 5000, 'the first try');
    // Longer than many retry rounds (100 ms back-off, two tries): without the pause everything would be dead-lettered by now.
    await sleep(2000);
    const whileDown = runs.length;
    expect(whileDown).toBeLessThanOrEqual(ids.length); // each message tried at most once, then the consumer paused
    expect(runs.every((r) => r.meta.attempt === 1)).toBe(true);
    expect(await queueDepth(queues.dlq)).toBe(0);
    const paused = await metricsRegistry.getSingleMetricAsString('messaging_consumer_paused');
    expect(paused).toMatch(new RegExp(`consumer="${CONSUMER}"[^\\n]* 1`));

    databaseUp = true;
    await waitFor(() => ids.every((id) => handled.includes(id)), 10_000, 'every message handled after the outage');
    await sleep(300);
    expect(handled.filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort()); // once each
    // Still the first try: the outage counted none.
    for (const id of ids) expect(runs.filter((r) => r.meta.messageId === id && r.up).map((r) => r.meta.attempt)).toEqual([1]);
    const deferred = runs.filter((r) => !r.up);
    expect(deferred.length).toBeGreaterThan(0);
    expect(await queueDepth(queues.dlq)).toBe(0);
    expect(await queueDepth(queues.queue)).toBe(0);
    const metrics = await metricsRegistry.getSingleMetricAsString('messaging_messages_deferred_total');
    expect(metrics).toMatch(new RegExp(`type="${TYPE}"`));
    expect(await metricsRegistry.getSingleMetricAsString('messaging_consumer_paused')).toMatch(
      new RegExp(`consumer="${CONSUMER}"[^\\n]* 0`),
    );
  });

  it("a failure while every dependency answers is the message's: retried, then dead-lettered as usual", async () => {
    databaseUp = true;
    const id = await amqp.publish(POISON, {});
    await waitFor(async () => (await queueDepth(queues.dlq)) === 1, 10_000, 'the dead letter');
    expect(poisonTries).toBe(2);
    const [dead] = await drainQueue(queues.dlq);
    expect(dead.properties.messageId).toBe(id);
    expect(dead.properties.headers![HEADERS.attempts]).toBe(2);
  });
});
