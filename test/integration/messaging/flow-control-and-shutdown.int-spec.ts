import { AmqpConnection, AmqpContext, queuesOf } from '@lr/messaging';
import { Harness, messagingTestSetup, queueDepth, sleep, waitFor } from './support';

const CONSUMER = 'checks';
const T = { slow: 'test.slow-check.v1', drain: 'test.drain.v1', stuck: 'test.stuck.v1' };
const PREFETCH = 3;
const { config, topology } = messagingTestSetup(
  CONSUMER,
  Object.values(T).map((type) => ({ type, kind: 'command' as const, consumers: [CONSUMER] })),
  { AMQP_PREFETCH: String(PREFETCH), SHUTDOWN_GRACE_MS: '3000' },
);
const queues = queuesOf(topology, CONSUMER);

describe('messaging: bounded prefetch and graceful shutdown', () => {
  const harness = new Harness(config, topology);
  let amqp: AmqpConnection;

  beforeAll(async () => {
    amqp = await harness.connection();
  });
  afterAll(() => harness.dispose());

  it(`runs at most prefetch (${PREFETCH}) handlers at once`, async () => {
    let running = 0;
    let maxRunning = 0;
    const done: number[] = [];
    const transport = harness.transport(amqp, CONSUMER);
    transport.addHandler(T.slow, async (payload: { i: number }) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await sleep(150);
      running--;
      done.push(payload.i);
    });
    await transport.start();
    await Promise.all(Array.from({ length: 12 }, (_, i) => amqp.publish(T.slow, { i })));
    await waitFor(() => done.length === 12, 15_000, 'all twelve messages');
    expect(maxRunning).toBe(PREFETCH);
    await transport.close();
    expect(await queueDepth(queues.queue)).toBe(0);
  });

  it('close() lets the in-flight handler finish and ack, and leaves queued messages in the queue', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const config1 = { ...config, amqp: { ...config.amqp, prefetch: 1 } };
    const transport = harness.transport(amqp, CONSUMER, config1);
    transport.addHandler(T.drain, async (payload: { i: number }) => {
      started.push(payload.i);
      await sleep(800);
      finished.push(payload.i);
    });
    await transport.start();
    await amqp.publish(T.drain, { i: 1 });
    await amqp.publish(T.drain, { i: 2 });
    await waitFor(() => started.length === 1, 5000, 'the first handler to start');

    const t0 = Date.now();
    await transport.close();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(500); // it waited for the handler
    expect(started).toEqual([1]);
    expect(finished).toEqual([1]);
    // Message 1 was acked, message 2 was never taken: nothing lost, nothing duplicated.
    await waitFor(async () => (await queueDepth(queues.queue)) === 1, 5000, 'one message left');

    // The next consumer picks up where this one stopped.
    const next = harness.transport(amqp, CONSUMER, config1);
    next.addHandler(T.drain, async (payload: { i: number }) => void finished.push(payload.i));
    await next.start();
    await waitFor(() => finished.length === 2, 5000, 'the second message');
    expect(finished).toEqual([1, 2]);
    await next.close();
    expect(await queueDepth(queues.queue)).toBe(0);
  });

  it('a handler still running after the grace period does not hold shutdown; its message returns to the queue', async () => {
    const shortGrace = { ...config, shutdownGraceMs: 300 };
    let release: () => void = () => undefined;
    const blocked = new Promise<void>((r) => (release = r));
    let seen = 0;
    const transport = harness.transport(amqp, CONSUMER, shortGrace);
    transport.addHandler(T.stuck, async (_: unknown, ctx: AmqpContext) => {
      seen++;
      expect(ctx.getMeta().attempt).toBe(1);
      await blocked;
    });
    await transport.start();
    await amqp.publish(T.stuck, {});
    await waitFor(() => seen === 1, 5000, 'the stuck handler');
    const t0 = Date.now();
    await transport.close();
    expect(Date.now() - t0).toBeLessThan(1500);
    await waitFor(async () => (await queueDepth(queues.queue)) === 1, 5000, 'the message back in the queue');
    release();
    await sleep(100);
    // The late finish must not ack or copy anything: the message is still there, once.
    expect(await queueDepth(queues.queue)).toBe(1);
    expect(await queueDepth(queues.dlq)).toBe(0);
  });
});
