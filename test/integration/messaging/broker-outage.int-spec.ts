import { AmqpConnection, AmqpContext, BrokerUnavailableError, queuesOf, ReplyLostError } from '@lr/messaging';
import { TcpProxy } from '../../support/tcp-proxy';
import { TEST_AMQP_VHOST, testConfig } from '../../support/test-env';
import { Harness, messagingTestSetup, sleep, waitFor, withAdminChannel } from './support';

const CONSUMER = 'delivery';
const TYPE = 'test.search-started.v1';
const ASK = 'test.ask.v1';
const { config, topology } = messagingTestSetup(CONSUMER, [
  { type: TYPE, kind: 'command', consumers: [CONSUMER] },
  { type: ASK, kind: 'command', consumers: [CONSUMER] },
]);
const queues = queuesOf(topology, CONSUMER);

describe('messaging: the broker goes away and comes back', () => {
  const harness = new Harness(config, topology);
  const proxy = new TcpProxy(5672);
  let amqp: AmqpConnection;
  const received: string[] = [];
  let asked = 0;

  beforeAll(async () => {
    await proxy.start();
    // The same settings, but reaching RabbitMQ through the proxy.
    const viaProxy = testConfig('delivery', config.amqp.prefix.slice(1), {
      AMQP_URL: `amqp://guest:guest@127.0.0.1:${proxy.port}/${TEST_AMQP_VHOST}`,
      AMQP_RETRY_DELAYS_MS: config.amqp.retryDelaysMs.join(','),
    });
    expect(viaProxy.amqp.prefix).toBe(config.amqp.prefix);
    expect(viaProxy.dependencyTimeoutMs).toBe(1500);
    amqp = await harness.connection({ reconnectDelayMs: 250 }, viaProxy);
    const transport = harness.transport(amqp, CONSUMER, viaProxy);
    transport.addHandler(TYPE, async (_: unknown, ctx: AmqpContext) => void received.push(ctx.getMeta().messageId));
    transport.addHandler(ASK, async () => {
      asked++;
      await sleep(1000);
      return { ok: true };
    });
    await transport.start();
  });

  afterAll(async () => {
    await proxy.close();
    await harness.dispose();
  });

  async function timed<T>(p: Promise<T>): Promise<{ ms: number; error?: unknown }> {
    const t0 = Date.now();
    try {
      await p;
      return { ms: Date.now() - t0 };
    } catch (error) {
      return { ms: Date.now() - t0, error };
    }
  }

  it('publishes, fails fast while the broker is unreachable, recovers by itself, and delivers once', async () => {
    const before = await amqp.publish(TYPE, { n: 1 });
    await waitFor(() => received.includes(before), 5000, 'the first message');

    await proxy.cut();
    await waitFor(() => !amqp.isConnected(), 5000, 'the connection to notice the outage');

    // Right after the outage: the publish may wait for a quick reconnect, but not past the dependency timeout.
    const early = await timed(amqp.publish(TYPE, { n: 2 }));
    expect(early.error).toBeInstanceOf(BrokerUnavailableError);
    expect(early.ms).toBeLessThan(2000);
    // Once the outage is older than the timeout, publishes and requests are refused at once.
    const late = await timed(amqp.publish(TYPE, { n: 3 }));
    expect(late.error).toBeInstanceOf(BrokerUnavailableError);
    expect(late.ms).toBeLessThan(100);
    const request = await timed(amqp.request(ASK, { q: 1 }, { timeoutMs: 5000 }));
    expect(request.error).toBeInstanceOf(BrokerUnavailableError);
    expect(request.error).not.toBeInstanceOf(ReplyLostError); // never published
    expect(request.ms).toBeLessThan(2000);

    // While the process is cut off, the consumer queue disappears: recovery must declare it again.
    await withAdminChannel((ch) => ch.deleteQueue(queues.queue));

    await proxy.restore();
    await waitFor(() => amqp.isConnected(), 10_000, 'the reconnect');
    const after = await amqp.publish(TYPE, { n: 4 });
    await waitFor(() => received.includes(after), 5000, 'the consumer to resume on the re-declared queue');

    // Nothing refused during the outage shows up later.
    await sleep(500);
    expect(received).toEqual([before, after]);
  });

  it('confirms a publish that races the reconnect exactly once, and delivers it once', async () => {
    await proxy.cut();
    await waitFor(() => !amqp.isConnected(), 5000, 'the connection to notice the outage');
    const racing = amqp.publish(TYPE, { n: 5 });
    await sleep(50);
    await proxy.restore();
    const id = await racing; // resolved by the confirm on the new connection
    await waitFor(() => received.includes(id), 5000, 'the racing message');
    await sleep(800);
    expect(received.filter((r) => r === id)).toHaveLength(1);
    expect(amqp.isConnected()).toBe(true);
  });

  it('fails a request waiting for its reply as soon as the connection drops, not at its timeout, saying it was published', async () => {
    await waitFor(() => amqp.isConnected(), 10_000, 'the connection');
    const askedBefore = asked;
    let sent = false;
    const pending = timed(amqp.request(ASK, { q: 2 }, { timeoutMs: 10_000, onSent: () => (sent = true) }));
    await waitFor(() => asked > askedBefore, 5000, 'the handler to take the request');
    // The publisher's confirm may trail the delivery to the handler by a moment: cut once it has come (onSent).
    await waitFor(() => sent, 5000, 'the confirm of the request');
    await proxy.cut();
    const result = await pending;
    // Taken by the broker, then the way back died: a ReplyLostError (still a BrokerUnavailableError).
    expect(result.error).toBeInstanceOf(ReplyLostError);
    expect(result.error).toBeInstanceOf(BrokerUnavailableError);
    expect(result.ms).toBeLessThan(1000);
    await proxy.restore();
    await waitFor(() => amqp.isConnected(), 10_000, 'the reconnect');
  });

  it('ping: a round trip that a stalled broker fails within its deadline, and that passes again once it answers', async () => {
    await waitFor(() => amqp.isConnected(), 10_000, 'the connection');
    await amqp.ping(1000);
    await proxy.stall();
    try {
      // The connection still looks open (no reset, heartbeats not yet missed), but nothing comes back.
      expect(amqp.isConnected()).toBe(true);
      const stalled = await timed(amqp.ping(800));
      expect(stalled.error).toBeInstanceOf(BrokerUnavailableError);
      expect(stalled.ms).toBeGreaterThanOrEqual(750);
      expect(stalled.ms).toBeLessThan(1500);
    } finally {
      await proxy.restore();
    }
    // The stalled connection is reset on restore; the client reconnects by itself and the round trip passes again.
    await waitFor(async () => !(await timed(amqp.ping(1000))).error, 10_000, 'a ping to pass after the stall');
  });
});
