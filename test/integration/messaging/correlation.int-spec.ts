import { AmqpConnection, AmqpContext } from '@lr/messaging';
import { currentCorrelationId, withCorrelationId } from '@lr/observability';
import { Harness, messagingTestSetup, waitFor } from './support';

const CONSUMER = 'checks';
const T = { first: 'test.first-hop.v1', second: 'test.second-hop.v1', ask: 'test.ask.v1' };
const { config, topology } = messagingTestSetup(
  CONSUMER,
  Object.values(T).map((type) => ({ type, kind: 'command' as const, consumers: [CONSUMER] })),
);

/**
 * One correlation id follows the work: a handler runs under its message's
 * correlation id, and what it publishes (commands and requests) carries that
 * id unless it names another; outside any handling a message is its own correlation.
 */
describe('messaging: correlation ids travel from message to message', () => {
  const harness = new Harness(config, topology);
  let amqp: AmqpConnection;
  const seen: Array<{ type: string; correlationId: string; current: string | undefined }> = [];

  beforeAll(async () => {
    amqp = await harness.connection();
    const transport = harness.transport(await harness.connection(), CONSUMER);
    transport.addHandler(T.first, async (payload: { ask: boolean }, ctx: AmqpContext) => {
      seen.push({ type: T.first, correlationId: ctx.getMeta().correlationId, current: currentCorrelationId() });
      // Published from inside the handler without a correlationId: it inherits this message's.
      if (payload.ask) await amqp.request(T.ask, {}, { timeoutMs: 3000 });
      await amqp.publish(T.second, {});
    });
    transport.addHandler(T.second, async (_: unknown, ctx: AmqpContext) => {
      seen.push({ type: T.second, correlationId: ctx.getMeta().correlationId, current: currentCorrelationId() });
    });
    transport.addHandler(T.ask, async (_: unknown, ctx: AmqpContext) => {
      seen.push({ type: T.ask, correlationId: ctx.getMeta().correlationId, current: currentCorrelationId() });
      return { ok: true };
    });
    await transport.start();
  });

  afterAll(() => harness.dispose());

  it('a command published by a handler, and a request it makes, carry the handled message’s correlation id', async () => {
    await amqp.publish(T.first, { ask: true }, { correlationId: 'req-chain-0001' });
    await waitFor(() => seen.length === 3, 5000, 'three hops');
    expect(seen).toEqual([
      { type: T.first, correlationId: 'req-chain-0001', current: 'req-chain-0001' },
      { type: T.ask, correlationId: 'req-chain-0001', current: 'req-chain-0001' },
      { type: T.second, correlationId: 'req-chain-0001', current: 'req-chain-0001' },
    ]);
  });

  it('concurrent messages keep their own ids through their hops', async () => {
    seen.length = 0;
    const ids = Array.from({ length: 20 }, (_, i) => `req-many-${String(i).padStart(4, '0')}`);
    await Promise.all(ids.map((correlationId) => amqp.publish(T.first, { ask: false }, { correlationId })));
    await waitFor(() => seen.length === 40, 10_000, 'forty hops');
    for (const id of ids) {
      expect(
        seen
          .filter((s) => s.correlationId === id)
          .map((s) => s.type)
          .sort(),
      ).toEqual([T.first, T.second].sort());
    }
    expect(seen.every((s) => s.current === s.correlationId)).toBe(true);
  });

  it('publishes under the caller’s context (an HTTP request) and, outside any, under the message id', async () => {
    seen.length = 0;
    await withCorrelationId('http-req-0001', () => amqp.publish(T.second, {}));
    const messageId = await amqp.publish(T.second, {});
    await waitFor(() => seen.length === 2, 5000, 'two messages');
    expect(seen.map((s) => s.correlationId).sort()).toEqual(['http-req-0001', messageId].sort());
  });
});
