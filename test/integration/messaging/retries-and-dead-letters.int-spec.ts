import { randomUUID } from 'node:crypto';
import type { MessageMeta } from '@lr/contracts';
import { AmqpConnection, AmqpContext, AmqpTransport, HEADERS, PermanentError, queuesOf } from '@lr/messaging';
import { metricsRegistry } from '@lr/observability';
import { Harness, drainQueue, messagingTestSetup, queueDepth, sleep, waitFor, withAdminChannel } from './support';

const CONSUMER = 'delivery';
const T = { fails: 'test.always-fails.v1', permanent: 'test.permanent.v1', garbage: 'test.garbage.v1', flaky: 'test.flaky.v1' };
const { config, topology } = messagingTestSetup(
  CONSUMER,
  Object.values(T).map((type) => ({ type, kind: 'command' as const, consumers: [CONSUMER] })),
  // Four tries; the last back-off repeats: waits of 150, 300, 300 ms.
  { AMQP_MAX_ATTEMPTS: '4', AMQP_RETRY_DELAYS_MS: '150,300' },
);
const queues = queuesOf(topology, CONSUMER);

describe('messaging: retries with back-off, then the dead-letter queue', () => {
  const harness = new Harness(config, topology);
  let amqp: AmqpConnection;
  let transport: AmqpTransport;
  const tries: Record<string, { meta: MessageMeta; at: number; headers: Record<string, unknown> }[]> = {};
  const record = (ctx: AmqpContext) => {
    const meta = ctx.getMeta();
    (tries[meta.messageId] ??= []).push({ meta, at: Date.now(), headers: ctx.getMessage().properties.headers ?? {} });
  };

  beforeAll(async () => {
    amqp = await harness.connection();
    transport = harness.transport(amqp, CONSUMER);
    transport.addHandler(T.fails, async (_: unknown, ctx: AmqpContext) => {
      record(ctx);
      throw new Error(`lead store rejected try ${ctx.getMeta().attempt}`);
    });
    transport.addHandler(T.permanent, async (_: unknown, ctx: AmqpContext) => {
      record(ctx);
      throw new PermanentError('school northfield does not exist');
    });
    transport.addHandler(T.garbage, async (_: unknown, ctx: AmqpContext) => record(ctx));
    transport.addHandler(T.flaky, async (_: unknown, ctx: AmqpContext) => {
      record(ctx);
      if (ctx.getMeta().attempt === 1) throw new Error('transient');
      return 'ok';
    });
    await transport.start();
  });

  afterAll(() => harness.dispose());

  async function deadLettered(messageId: string) {
    await waitFor(async () => (await queueDepth(queues.dlq)) > 0, 15_000, `a message in ${queues.dlq}`);
    const all = await drainQueue(queues.dlq);
    expect(all.map((m) => m.properties.messageId)).toEqual([messageId]);
    return all[0];
  }

  it('a handler that always throws ends in the DLQ after exactly maxAttempts tries, spaced by the back-off', async () => {
    const messageId = await amqp.publish(T.fails, { leadId: 'L-1' }, { correlationId: 'req-fails' });
    const dead = await deadLettered(messageId);
    await sleep(800); // nothing else may arrive: the DLQ is the end of the road
    const runs = tries[messageId];
    expect(runs.map((r) => r.meta.attempt)).toEqual([1, 2, 3, 4]);
    const gaps = runs.slice(1).map((r, i) => r.at - runs[i].at);
    expect(gaps[0]).toBeGreaterThanOrEqual(140);
    expect(gaps[1]).toBeGreaterThanOrEqual(290);
    expect(gaps[2]).toBeGreaterThanOrEqual(290);
    expect(runs[1].headers[HEADERS.lastError]).toBe('lead store rejected try 1');
    expect(new Set(runs.map((r) => r.meta.messageId))).toEqual(new Set([messageId]));

    const h = dead.properties.headers!;
    expect(h[HEADERS.deathReason]).toBe('lead store rejected try 4');
    expect(h[HEADERS.attempts]).toBe(4);
    expect(h[HEADERS.originalQueue]).toBe(queues.queue);
    expect(h[HEADERS.originalRoutingKey]).toBe(T.fails);
    expect(Date.parse(String(h[HEADERS.firstFailureAt]))).toBeLessThanOrEqual(runs[1].at);
    expect(dead.properties).toMatchObject({ messageId, type: T.fails, correlationId: 'req-fails', deliveryMode: 2 });
    expect(JSON.parse(dead.content.toString())).toEqual({ leadId: 'L-1' });
    expect(await queueDepth(queues.queue)).toBe(0);
    for (const level of queues.retry) expect(await queueDepth(level.queue)).toBe(0);

    const metrics = await metricsRegistry.getSingleMetricAsString('messaging_messages_dead_lettered_total');
    expect(metrics).toMatch(new RegExp(`cause="exhausted".*type="${T.fails}"|type="${T.fails}".*cause="exhausted"`));
  });

  it('a PermanentError goes straight to the DLQ', async () => {
    const messageId = await amqp.publish(T.permanent, { leadId: 'L-2' });
    const dead = await deadLettered(messageId);
    expect(tries[messageId]).toHaveLength(1);
    expect(dead.properties.headers![HEADERS.deathReason]).toBe('PermanentError: school northfield does not exist');
    expect(dead.properties.headers![HEADERS.attempts]).toBe(1);
  });

  it('a body that is not JSON goes straight to the DLQ without reaching the handler', async () => {
    const messageId = randomUUID();
    await withAdminChannel(async (ch) => {
      ch.publish(topology.exchanges.commands, T.garbage, Buffer.from('{"leadId": "L-3"'), { messageId, type: T.garbage, persistent: true });
    });
    const dead = await deadLettered(messageId);
    expect(tries[messageId]).toBeUndefined();
    expect(String(dead.properties.headers![HEADERS.deathReason])).toMatch(/^invalid JSON body/);
    expect(dead.content.toString()).toBe('{"leadId": "L-3"');
  });

  it('a handler that fails once succeeds on the retry and nothing is dead-lettered', async () => {
    const messageId = await amqp.publish(T.flaky, { leadId: 'L-4' });
    await waitFor(() => tries[messageId]?.length === 2, 10_000, 'the retry');
    await sleep(300);
    expect(tries[messageId].map((r) => r.meta.attempt)).toEqual([1, 2]);
    expect(await queueDepth(queues.dlq)).toBe(0);
    expect(await queueDepth(queues.queue)).toBe(0);
  });
});
