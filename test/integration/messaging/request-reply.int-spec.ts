import {
  AmqpConnection,
  AmqpContext,
  PermanentError,
  RemoteHandlerError,
  RequestTimeoutError,
  UnknownMessageTypeError,
} from '@lr/messaging';
import { metricsRegistry } from '@lr/observability';
import { Harness, messagingTestSetup, sleep, waitFor } from './support';

const CONSUMER = 'search-orchestrator';
const T = { double: 'test.double.v1', silent: 'test.silent.v1', slow: 'test.slow.v1', broken: 'test.broken.v1' };
const { config, topology } = messagingTestSetup(
  CONSUMER,
  Object.values(T).map((type) => ({ type, kind: 'command' as const, consumers: [CONSUMER] })),
);

describe('messaging: request/reply with a timeout', () => {
  const harness = new Harness(config, topology);
  let requester: AmqpConnection;
  let releaseSilent: () => void = () => undefined;
  const silentDone = new Promise<void>((resolve) => (releaseSilent = resolve));
  let slowAnswered = false;

  beforeAll(async () => {
    // Requester and replier on their own connections, as the gateway and the search-orchestrator are.
    requester = await harness.connection();
    const replier = await harness.connection();
    const transport = harness.transport(replier, CONSUMER);
    transport.addHandler(T.double, async (payload: { n: number }, ctx: AmqpContext) => ({
      doubled: payload.n * 2,
      correlationId: ctx.getMeta().correlationId,
    }));
    transport.addHandler(T.silent, async () => {
      await silentDone; // never answers while the test waits
    });
    transport.addHandler(T.slow, async (payload: { n: number }) => {
      await sleep(700);
      slowAnswered = true;
      return { late: payload.n };
    });
    transport.addHandler(T.broken, async () => {
      throw new PermanentError('campaign is paused');
    });
    await transport.start();
  });

  afterAll(async () => {
    releaseSilent();
    await harness.dispose();
  });

  it('returns the handler’s answer', async () => {
    const answer = await requester.request<{ n: number }, { doubled: number; correlationId: string }>(
      T.double,
      { n: 21 },
      { timeoutMs: 3000, correlationId: 'req-42' },
    );
    expect(answer).toEqual({ doubled: 42, correlationId: 'req-42' });
  });

  it('keeps concurrent requests apart, even when they share a correlationId', async () => {
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        requester.request<{ n: number }, { doubled: number }>(T.double, { n }, { timeoutMs: 3000, correlationId: 'same-http-request' }),
      ),
    );
    expect(answers.map((a) => a.doubled)).toEqual([2, 4, 6, 8, 10]);
  });

  it('rejects with RequestTimeoutError near the timeout when the handler never answers', async () => {
    const t0 = Date.now();
    const error = await requester.request(T.silent, { n: 1 }, { timeoutMs: 500 }).catch((e: unknown) => e);
    const elapsed = Date.now() - t0;
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(elapsed).toBeGreaterThanOrEqual(480);
    expect(elapsed).toBeLessThan(900);
  });

  it('drops a reply that comes after the timeout', async () => {
    const late = () =>
      metricsRegistry.getSingleMetricAsString('messaging_late_replies_total').then((s) => Number(/ (\d+)$/m.exec(s)?.[1] ?? 0));
    const lateBefore = await late();
    await expect(requester.request(T.slow, { n: 7 }, { timeoutMs: 300 })).rejects.toBeInstanceOf(RequestTimeoutError);
    await waitFor(() => slowAnswered, 5000, 'the slow handler');
    await waitFor(async () => (await late()) === lateBefore + 1, 5000, 'the late reply to be dropped');
    // The reply queue keeps working for the next request.
    await expect(requester.request(T.double, { n: 4 }, { timeoutMs: 3000 })).resolves.toEqual(expect.objectContaining({ doubled: 8 }));
  });

  it('tells the requester at once when the handler failed for good', async () => {
    const t0 = Date.now();
    const error = await requester.request(T.broken, {}, { timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteHandlerError);
    expect(String((error as Error).message)).toContain('campaign is paused');
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('refuses a second request under a messageId that is still waiting, without publishing it', async () => {
    const first = requester.request<{ n: number }, { doubled: number }>(T.double, { n: 3 }, { timeoutMs: 3000, messageId: 'search-1' });
    await expect(requester.request(T.double, { n: 3 }, { timeoutMs: 3000, messageId: 'search-1' })).rejects.toThrow(/already waiting/);
    await expect(first).resolves.toEqual(expect.objectContaining({ doubled: 6 }));
  });

  it('refuses a type that has no route instead of dropping it', async () => {
    await expect(requester.request('test.nobody.v1', {}, { timeoutMs: 500 })).rejects.toBeInstanceOf(UnknownMessageTypeError);
    await expect(requester.publish('test.nobody.v1', {})).rejects.toBeInstanceOf(UnknownMessageTypeError);
  });
});
