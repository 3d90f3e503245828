import type { GetMessage } from 'amqplib';
import { DataSource } from 'typeorm';
import { loadConfig } from '@lr/config';
import { MESSAGE_TYPES } from '@lr/contracts';
import { AmqpConnection, AmqpContext, HEADERS, PermanentError, deadLetterQueueNames, queuesOf, topologyFor } from '@lr/messaging';
import { createDataSource, ProcessedMessages } from '@lr/persistence';
import { Harness, queueDepth, sleep, waitFor, withAdminChannel } from '../messaging/support';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../../support/test-env';
import { CliRun, opsIn } from './ops-test-support';

/**
 * `dlq list|show|replay|purge` in-process against the real broker, with the
 * product topology of this file's own AMQP_PREFIX and a real consumer of the
 * messaging library on the delivery queue. Its handler fails until the test
 * "fixes the cause", and counts its effects in a table of its own, deduplicated
 * on the messageId by ProcessedMessages.runOnce exactly as the apps do.
 */
const suffix = uniqueSuffix();
const env = testEnv(suffix);
const config = loadConfig('delivery', env);
const topology = topologyFor(config);
const delivery = queuesOf(topology, 'delivery');
const DLQ = delivery.dlq;
const EFFECTS = `dlq_test_effects_${suffix}`;
const CONSUMER_LABEL = `dlq-test-${suffix}`;
const CANARY = {
  email: `canary.${suffix}@example.com`,
  phone: `512555${suffix.replace(/\D/g, '').padEnd(4, '7').slice(0, 4)}`,
  last_name: `Canary${suffix}`,
};

const cli = (...args: string[]): Promise<CliRun> => opsIn(env, args);

describe('ops dlq: list, show, replay, purge against the real broker', () => {
  const harness = new Harness(config, topology);
  let amqp: AmqpConnection;
  let ds: DataSource;
  let causeFixed = false;
  /** Every handler run: which message, which try, and how it arrived. */
  const runs: Array<{ id: string; attempt: number; redelivered: boolean; correlationId: string; headers: Record<string, unknown> }> = [];
  const runsOf = (id: string) => runs.filter((r) => r.id === id);
  let savedA: GetMessage | undefined;

  const effects = async (id: string): Promise<number> =>
    Number((await ds.query(`SELECT count(*)::int AS n FROM ${EFFECTS} WHERE message_id = $1`, [id]))[0].n);

  /** Message ids in the DLQ, oldest first, as `dlq show --json` reads them. */
  async function dlqIds(): Promise<string[]> {
    const run = await cli('dlq', 'show', DLQ, '--json', '--limit', '100');
    expect(run.code).toBe(0);
    return JSON.parse(run.stdout).messages.map((m: { message_id: string }) => m.message_id);
  }

  const submit = (leadId: string, extra: Record<string, unknown> = {}) =>
    amqp.publish(
      MESSAGE_TYPES.DeliveryRequested,
      {
        leadId,
        lead: { personal: { email: CANARY.email, phone: CANARY.phone, first_name: 'Ada', last_name: CANARY.last_name } },
        ...extra,
      },
      { messageId: `submit:${leadId}`, correlationId: `req-${leadId}` },
    );

  beforeAll(async () => {
    ds = createDataSource({ url: TEST_DATABASE_URL, poolSize: 2, timeoutMs: 5000 });
    await ds.initialize();
    await ds.query(`CREATE TABLE ${EFFECTS} (message_id text NOT NULL, at timestamptz NOT NULL DEFAULT now())`);
    amqp = await harness.connection();
    const transport = harness.transport(amqp, 'delivery');
    transport.addHandler(MESSAGE_TYPES.DeliveryRequested, async (payload: { permanent?: boolean }, ctx: AmqpContext) => {
      const meta = ctx.getMeta();
      const msg = ctx.getMessage();
      runs.push({
        id: meta.messageId,
        attempt: meta.attempt,
        redelivered: msg.fields.redelivered,
        correlationId: meta.correlationId,
        headers: msg.properties.headers ?? {},
      });
      if (!causeFixed) {
        if (payload.permanent) throw new PermanentError(`the offer of this lead is misconfigured (contact ${CANARY.email})`);
        throw new Error('school system unreachable');
      }
      await new ProcessedMessages(ds).runOnce(CONSUMER_LABEL, meta, async (em) => {
        await em.query(`INSERT INTO ${EFFECTS} (message_id) VALUES ($1)`, [meta.messageId]);
      });
    });
    await transport.start();
  });

  afterAll(async () => {
    await harness.dispose();
    await ds?.query(`DROP TABLE IF EXISTS ${EFFECTS}`);
    await ds?.query('DELETE FROM processed_messages WHERE consumer = $1', [CONSUMER_LABEL]);
    await ds?.destroy();
  });

  it('refuses, for every dlq command, a queue that is not a DLQ of the topology', async () => {
    for (const args of [['show'], ['replay'], ['replay', '--dry-run'], ['purge', '--yes']]) {
      for (const name of [delivery.queue, 'lr.delivery.dlq', 'nope']) {
        const run = await cli('dlq', args[0], name, ...args.slice(1));
        expect(run.code).toBe(1);
        expect(run.stdout).toBe('');
        expect(run.stderr).toContain(
          `"${name}" is not a dead-letter queue of this topology; the DLQs are: ${deadLetterQueueNames(topology).join(', ')}`,
        );
      }
    }
    const badLimit = await cli('dlq', 'show', DLQ, '--limit', '0');
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toMatch(/option '--limit <n>' argument '0' is invalid\. must be a whole number from 1/);
    expect((await cli('dlq', 'show')).code).toBe(2);
  });

  it('a poisoned message lands in the DLQ after its tries, and dlq list shows depth 1', async () => {
    await submit('A');
    await waitFor(async () => (await queueDepth(DLQ)) === 1, 15_000, 'A in the DLQ');
    expect(runsOf('submit:A').map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(await effects('submit:A')).toBe(0);

    const list = await cli('dlq', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^QUEUE\s+CONSUMER\s+MESSAGES\s+CONSUMERS$/m);
    expect(list.stdout).toMatch(new RegExp(`^${DLQ.replace(/\./g, '\\.')}\\s+delivery\\s+1\\s+0$`, 'm'));
    const json = JSON.parse((await cli('dlq', 'list', '--json')).stdout);
    expect(json).toHaveLength(4);
    expect(json.map((r: { queue: string }) => r.queue)).toEqual(deadLetterQueueNames(topology));
    expect(json.find((r: { queue: string }) => r.queue === DLQ)).toEqual({
      queue: DLQ,
      consumer: 'delivery',
      declared: true,
      messages: 1,
      consumers: 0,
    });
    expect(json.filter((r: { messages: number }) => r.messages === 0)).toHaveLength(3);
  });

  it('dlq show lists it with its reason and no contact data, and leaves the queue as it was', async () => {
    const show = await cli('dlq', 'show', DLQ);
    expect(show.code).toBe(0);
    expect(show.stderr).toBe('');
    const lines = show.stdout.trim().split('\n');
    expect(lines[0]).toBe(`${DLQ}: 1 message`);
    expect(lines[1]).toMatch(
      /^MESSAGE ID\s+TYPE\s+ATTEMPTS\s+FIRST FAILURE\s+ORIGINAL QUEUE\s+ORIGINAL ROUTING KEY\s+CORRELATION ID\s+REASON$/,
    );
    expect(lines[2]).toMatch(
      new RegExp(
        `^submit:A\\s+delivery\\.requested\\.v1\\s+3\\s+\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\s+${delivery.queue.replace(/\./g, '\\.')}\\s+delivery\\.requested\\.v1\\s+req-A\\s+school system unreachable$`,
      ),
    );

    const json = JSON.parse((await cli('dlq', 'show', DLQ, '--json')).stdout);
    expect(json).toMatchObject({ queue: DLQ, depth: 1, shown: 1 });
    expect(json.messages[0]).toEqual({
      message_id: 'submit:A',
      type: 'delivery.requested.v1',
      correlation_id: 'req-A',
      reason: 'school system unreachable',
      attempts: 3,
      first_failure_at: expect.stringMatching(/Z$/),
      original_queue: delivery.queue,
      original_routing_key: 'delivery.requested.v1',
      published_at: expect.stringMatching(/Z$/),
    });
    for (const raw of Object.values(CANARY)) {
      expect(show.stdout).not.toContain(raw);
      expect(JSON.stringify(json)).not.toContain(raw);
    }

    // Still there, still whole: the test keeps a copy to replay it a second time later.
    expect(await queueDepth(DLQ)).toBe(1);
    savedA = await withAdminChannel(async (ch) => (await ch.get(DLQ, { noAck: false })) || undefined);
    expect(savedA?.properties.messageId).toBe('submit:A');
    expect(JSON.parse(savedA!.content.toString()).lead.personal.email).toBe(CANARY.email);
    expect(await queueDepth(DLQ)).toBe(1);
  });

  it('replay --dry-run lists what would be replayed and changes nothing', async () => {
    const before = runs.length;
    const dry = await cli('dlq', 'replay', DLQ, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^submit:A\s+delivery\.requested\.v1\s+3\s/m);
    expect(dry.stdout).toContain(`dry run: would replay 1 message from ${DLQ} to ${delivery.queue} (read 1 of 1); nothing changed`);
    for (const raw of Object.values(CANARY)) expect(dry.stdout).not.toContain(raw);
    await sleep(500);
    expect(await queueDepth(DLQ)).toBe(1);
    expect(runs.length).toBe(before);
    expect(await effects('submit:A')).toBe(0);
  });

  it('reading keeps the order, and a permanent failure is parked after one try with its reason redacted', async () => {
    await submit('B', { permanent: true });
    await submit('C', { permanent: true });
    await waitFor(async () => (await queueDepth(DLQ)) === 3, 10_000, 'B and C in the DLQ');
    expect(runsOf('submit:B')).toHaveLength(1);
    expect(await dlqIds()).toEqual(['submit:A', 'submit:B', 'submit:C']);
    expect(await dlqIds()).toEqual(['submit:A', 'submit:B', 'submit:C']);
    const firstTwo = JSON.parse((await cli('dlq', 'show', DLQ, '--json', '--limit', '2')).stdout);
    expect(firstTwo).toMatchObject({ depth: 3, shown: 2 });
    expect(firstTwo.messages[1].reason).toBe('PermanentError: the offer of this lead is misconfigured (contact [email])');
    expect(firstTwo.messages[1].attempts).toBe(1);
    expect((await cli('dlq', 'show', DLQ)).stdout).not.toContain(CANARY.email);
    // Looking at part of the queue, or replaying part of it dry, gives it back in place.
    expect(await dlqIds()).toEqual(['submit:A', 'submit:B', 'submit:C']);
    expect((await cli('dlq', 'show', DLQ, '--limit', '1')).code).toBe(0);
    expect((await cli('dlq', 'replay', DLQ, '--dry-run', '--limit', '1')).stdout).toContain('would replay 1 message');
    expect((await cli('dlq', 'replay', DLQ, '--dry-run', '--id', 'submit:B', '--limit', '1')).stdout).toContain('would replay 1 message');
    expect(await dlqIds()).toEqual(['submit:A', 'submit:B', 'submit:C']);
    expect(await queueDepth(DLQ)).toBe(3);
  });

  it('after the cause is fixed, replay --id replays only the named message; the rest stays in order', async () => {
    causeFixed = true;
    const run = await cli('dlq', 'replay', DLQ, '--id', 'submit:B');
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(`replayed 1 message from ${DLQ} to ${delivery.queue} (read 3 of 3; 2 of the 3 still in the DLQ)`);
    await waitFor(async () => (await effects('submit:B')) === 1, 10_000, 'the effect of B');
    expect(await effects('submit:A')).toBe(0);
    expect(await effects('submit:C')).toBe(0);
    expect(await dlqIds()).toEqual(['submit:A', 'submit:C']);

    // The copy came back as the same message on a fresh first try.
    const replayed = runsOf('submit:B').at(-1)!;
    expect(replayed).toMatchObject({ attempt: 1, redelivered: false, correlationId: 'req-B' });
    expect(replayed.headers[HEADERS.replayedAt]).toEqual(expect.stringMatching(/Z$/));
    expect(replayed.headers[HEADERS.deathReason]).toBeUndefined();
    expect(replayed.headers['x-delivery-count']).toBeUndefined();
  });

  it('an id that is not in the DLQ is refused, and nothing changes', async () => {
    const run = await cli('dlq', 'replay', DLQ, '--id', 'submit:nope');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('replayed 0 messages');
    expect(run.stderr).toContain(`not in ${DLQ}: submit:nope`);
    expect(await dlqIds()).toEqual(['submit:A', 'submit:C']);
  });

  it('replay of the rest: one effect each, a progress bar only on a terminal, and the DLQ is empty', async () => {
    let drawn = '';
    const tty = {
      isTTY: true,
      columns: 120,
      write: (chunk: string | Uint8Array) => ((drawn += String(chunk)), true),
    } as unknown as NodeJS.WritableStream & { isTTY: boolean };
    const run = await opsIn(env, ['dlq', 'replay', DLQ], { progressStream: tty });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(`replayed 2 messages from ${DLQ} to ${delivery.queue} (read 2 of 2; 0 of the 2 still in the DLQ)`);
    expect(drawn).toContain(`${DLQ} [`);
    expect(drawn).toContain('2/2 read, 2 replayed');
    expect(run.stderr).toBe('');
    await waitFor(async () => (await effects('submit:A')) === 1 && (await effects('submit:C')) === 1, 10_000, 'the effects of A and C');
    expect(await queueDepth(DLQ)).toBe(0);
    expect(await effects('submit:B')).toBe(1);
  });

  it('a second replay of the same message (its copy put back in the DLQ) has no second effect', async () => {
    await withAdminChannel(async (ch) => {
      ch.publish('', DLQ, savedA!.content, { ...savedA!.properties, persistent: true });
      await sleep(50);
    });
    await waitFor(async () => (await queueDepth(DLQ)) === 1, 5000, 'the copy of A in the DLQ');
    const handledBefore = runsOf('submit:A').length;
    const run = await cli('dlq', 'replay', DLQ, '--id', 'submit:A');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('replayed 1 message');
    await waitFor(() => runsOf('submit:A').length === handledBefore + 1, 10_000, 'the second replay of A handled');
    await sleep(300);
    expect(await effects('submit:A')).toBe(1);
    expect(await queueDepth(DLQ)).toBe(0);
    expect(await queueDepth(delivery.queue)).toBe(0);
  });

  it('--limit replays the oldest first; a message without a messageId is never replayed', async () => {
    causeFixed = false;
    for (const id of ['D1', 'D2', 'D3']) await submit(id, { permanent: true });
    await withAdminChannel(async (ch) => {
      ch.publish('', DLQ, Buffer.from('{}'), {
        type: MESSAGE_TYPES.DeliveryRequested,
        persistent: true,
        headers: { [HEADERS.deathReason]: 'message has no messageId property' },
      });
      await sleep(50);
    });
    await waitFor(async () => (await queueDepth(DLQ)) === 4, 10_000, 'D1-D3 and the anonymous message in the DLQ');
    causeFixed = true;
    const run = await cli('dlq', 'replay', DLQ, '--limit', '2', '--json');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ queue: DLQ, target_queue: delivery.queue, dry_run: false, depth_before: 4, scanned: 2, not_found: [] });
    expect(report.replayed.map((m: { message_id: string }) => m.message_id)).toEqual(['submit:D1', 'submit:D2']);
    await waitFor(async () => (await effects('submit:D2')) === 1, 10_000, 'the effect of D2');
    expect(await effects('submit:D3')).toBe(0);

    const rest = await cli('dlq', 'replay', DLQ);
    expect(rest.code).toBe(0);
    expect(rest.stdout).toContain('replayed 1 message');
    expect(rest.stdout).toContain('1 skipped');
    expect(rest.stderr).toContain(
      `skipped (no message id): it has no messageId, so a replay could not be deduplicated; it stays in ${DLQ}`,
    );
    expect(await dlqIds()).toEqual([null]);
  });

  it('a copy the broker cannot route stops the replay, and its message stays in the DLQ', async () => {
    causeFixed = false;
    await submit('E', { permanent: true });
    await waitFor(async () => (await queueDepth(DLQ)) === 2, 10_000, 'E in the DLQ');
    causeFixed = true;
    const before = await dlqIds();
    await withAdminChannel((ch) => ch.unbindQueue(delivery.queue, topology.exchanges.retry, delivery.directRoutingKey));
    try {
      const run = await cli('dlq', 'replay', DLQ, '--id', 'submit:E');
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('replayed 0 messages');
      expect(run.stderr).toContain(`replay stopped: the broker could not route submit:E to its queue; it stays in ${DLQ}`);
    } finally {
      await withAdminChannel((ch) => ch.bindQueue(delivery.queue, topology.exchanges.retry, delivery.directRoutingKey));
    }
    expect(await dlqIds()).toEqual(before);
    expect(await effects('submit:E')).toBe(0);
    const again = await cli('dlq', 'replay', DLQ, '--id', 'submit:E');
    expect(again.code).toBe(0);
    await waitFor(async () => (await effects('submit:E')) === 1, 10_000, 'the effect of E');
    expect(await queueDepth(DLQ)).toBe(1);
  });

  it('purge refuses without --yes, and with --yes empties the DLQ', async () => {
    const refused = await cli('dlq', 'purge', DLQ);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`refusing to purge ${DLQ} without --yes`);
    expect(await queueDepth(DLQ)).toBe(1);
    const purged = await cli('dlq', 'purge', DLQ, '--yes');
    expect(purged.code).toBe(0);
    expect(purged.stdout.trim()).toBe(`purged 1 message from ${DLQ}`);
    expect(await queueDepth(DLQ)).toBe(0);
    expect(JSON.parse((await cli('dlq', 'show', DLQ, '--json')).stdout)).toEqual({ queue: DLQ, depth: 0, shown: 0, messages: [] });
  });

  it('a long DLQ keeps its order through reads, dry runs and partial replays, and a replay removes exactly what it replayed', async () => {
    const ids = Array.from({ length: 120 }, (_, i) => `submit:bulk-${String(i).padStart(3, '0')}`);
    await withAdminChannel(async (ch) => {
      for (const messageId of ids) {
        ch.sendToQueue(DLQ, Buffer.from('{"leadId":"bulk"}'), {
          messageId,
          type: MESSAGE_TYPES.DeliveryRequested,
          persistent: true,
          headers: { [HEADERS.deathReason]: 'school system unreachable', [HEADERS.attempts]: 3, [HEADERS.originalQueue]: delivery.queue },
        });
      }
      await sleep(200);
    });
    await waitFor(async () => (await queueDepth(DLQ)) === 120, 10_000, 'the bulk messages in the DLQ');
    const all = async () =>
      JSON.parse((await cli('dlq', 'show', DLQ, '--json', '--limit', '500')).stdout).messages.map(
        (m: { message_id: string }) => m.message_id,
      );

    const firstFive = JSON.parse((await cli('dlq', 'show', DLQ, '--json', '--limit', '5')).stdout);
    expect(firstFive.messages.map((m: { message_id: string }) => m.message_id)).toEqual(ids.slice(0, 5));
    expect(await all()).toEqual(ids);
    expect((await cli('dlq', 'replay', DLQ, '--dry-run', '--limit', '3')).code).toBe(0);
    expect(await all()).toEqual(ids);

    const one = await cli('dlq', 'replay', DLQ, '--id', ids[60]);
    expect(one.stdout.trim()).toBe(
      `replayed 1 message from ${DLQ} to ${delivery.queue} (read 120 of 120; 119 of the 120 still in the DLQ)`,
    );
    const rest = ids.filter((id) => id !== ids[60]);
    expect(await all()).toEqual(rest);

    const run = await cli('dlq', 'replay', DLQ, '--limit', '100', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).replayed.map((m: { message_id: string }) => m.message_id)).toEqual(rest.slice(0, 100));
    // No replayed message stays behind: every ack reached the queue before the channel closed.
    expect(await all()).toEqual(rest.slice(100));
    expect((await cli('dlq', 'replay', DLQ)).stdout).toContain('replayed 19 messages');
    expect(await queueDepth(DLQ)).toBe(0);
    await waitFor(async () => (await effects(ids[119])) === 1, 10_000, 'the last bulk message handled');
  });

  it('an unreachable broker is a refusal naming it, without its password', async () => {
    const run = await opsIn({ ...env, AMQP_URL: 'amqp://guest:secret@127.0.0.1:1/x' }, ['dlq', 'list']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot connect to RabbitMQ at amqp://guest:***@127.0.0.1:1/x');
    expect(run.stderr).not.toContain('secret');
  });
});
