import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { ConfigModule } from '@lr/config';
import {
  AmqpConnection,
  AmqpContext,
  HEADERS,
  HandleEvent,
  HandleMessage,
  MessagingModule,
  PermanentError,
  amqpReadiness,
  queuesOf,
  startAmqpConsumer,
} from '@lr/messaging';
import { deleteTopology, drainQueue, messagingTestSetup, queueDepth, waitFor } from './support';

const CONSUMER = 'search-orchestrator';
const T = {
  ask: 'test.nest-ask.v1',
  boom: 'test.nest-boom.v1',
  plainBoom: 'test.nest-plain-boom.v1',
  permanent: 'test.nest-permanent.v1',
  event: 'test.nest-happened.v1',
};
const { config, topology } = messagingTestSetup(CONSUMER, [
  ...[T.ask, T.boom, T.plainBoom, T.permanent].map((type) => ({ type, kind: 'command' as const, consumers: [CONSUMER] })),
  { type: T.event, kind: 'event', consumers: [CONSUMER] },
]);
const queues = queuesOf(topology, CONSUMER);
const events: string[] = [];

/** Handlers as an app writes them: thin controller methods. */
@Controller()
class TestHandlers {
  @HandleMessage(T.ask)
  ask(@Payload() payload: { n: number }, @Ctx() ctx: AmqpContext) {
    return { doubled: payload.n * 2, attempt: ctx.getMeta().attempt, consumer: ctx.getConsumer() };
  }

  @HandleMessage(T.boom)
  boom(): never {
    throw new Error('kaboom 42');
  }

  /** Plain @MessagePattern: Nest's exception filter hides the message (use @HandleMessage). */
  @MessagePattern(T.plainBoom)
  plainBoom(): never {
    throw new Error('detail the filter hides');
  }

  @MessagePattern(T.permanent)
  permanent(): never {
    throw new PermanentError('lead has no email');
  }

  @HandleEvent(T.event)
  happened(@Payload() payload: { what: string }) {
    events.push(payload.what);
  }
}

@Module({
  imports: [ConfigModule.forRoot(config), MessagingModule.forRoot(config, { consumer: CONSUMER, topology, reconnectDelayMs: 200 })],
  controllers: [TestHandlers],
})
class TestWorkerModule {}

describe('messaging: a Nest app with the AMQP transport', () => {
  let app: NestFastifyApplication;
  let amqp: AmqpConnection;

  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(TestWorkerModule, new FastifyAdapter(), { logger: false });
    await startAmqpConsumer(app);
    amqp = app.get(AmqpConnection);
  });

  afterAll(async () => {
    await app?.close();
    await deleteTopology(topology);
  });

  async function deadLetter(messageId: string) {
    await waitFor(async () => (await queueDepth(queues.dlq)) > 0, 10_000, 'the dead-lettered message');
    const [dead, ...rest] = await drainQueue(queues.dlq);
    expect(rest).toHaveLength(0);
    expect(dead.properties.messageId).toBe(messageId);
    return dead.properties.headers!;
  }

  it('answers a request from a @HandleMessage method', async () => {
    await expect(amqp.request(T.ask, { n: 5 }, { timeoutMs: 3000 })).resolves.toEqual({ doubled: 10, attempt: 1, consumer: CONSUMER });
    await expect(amqpReadiness(amqp).check()).resolves.toBeUndefined();
  });

  it('delivers events to @HandleEvent methods', async () => {
    await amqp.publish(T.event, { what: 'search closed' });
    await waitFor(() => events.includes('search closed'), 5000, 'the event');
  });

  it('retries a throwing handler and dead-letters it with the original error message', async () => {
    const id = await amqp.publish(T.boom, {});
    const h = await deadLetter(id);
    expect(h[HEADERS.deathReason]).toBe('kaboom 42');
    expect(h[HEADERS.attempts]).toBe(config.amqp.maxAttempts);
  });

  it('still retries and dead-letters behind a plain @MessagePattern, with Nest’s generic reason', async () => {
    const id = await amqp.publish(T.plainBoom, {});
    const h = await deadLetter(id);
    expect(h[HEADERS.deathReason]).toBe('Internal server error');
    expect(h[HEADERS.attempts]).toBe(config.amqp.maxAttempts);
  });

  it('dead-letters a PermanentError at once, even behind a plain @MessagePattern', async () => {
    const id = await amqp.publish(T.permanent, {});
    const h = await deadLetter(id);
    expect(h[HEADERS.deathReason]).toBe('PermanentError: lead has no email');
    expect(h[HEADERS.attempts]).toBe(1);
  });

  it('shuts down cleanly with the app', async () => {
    await app.close();
    expect(amqp.isConnected()).toBe(false);
    await expect(amqp.publish(T.event, { what: 'too late' })).rejects.toThrow(/closed/);
    expect(await queueDepth(queues.queue)).toBe(0);
  });
});
