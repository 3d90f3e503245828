import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AmqpConnection, AmqpContext, messagingMetrics, queuesOf } from '@lr/messaging';
import { createDataSource, ProcessedMessages } from '@lr/persistence';
import { TEST_AMQP_URL, TEST_DATABASE_URL } from '../../support/test-env';
import { Harness, messagingTestSetup, queueDepth, sleep, waitFor } from './support';

const CONSUMER = 'delivery';
const TYPE = 'test.lead-submitted.v1';
const { config, topology } = messagingTestSetup(CONSUMER, [{ type: TYPE, kind: 'command', consumers: [CONSUMER] }]);
const queues = queuesOf(topology, CONSUMER);
const FIXTURE = join(__dirname, 'fixtures', 'crash-before-ack.js');

describe('messaging: a consumer killed before its ack', () => {
  const harness = new Harness(config, topology);
  let amqp: AmqpConnection;
  let ds: DataSource;
  let child: ChildProcessWithoutNullStreams | undefined;
  const messageIds: string[] = [];

  beforeAll(async () => {
    ds = createDataSource({ url: TEST_DATABASE_URL, poolSize: 2 });
    await ds.initialize();
    await ds.query(`CREATE TABLE IF NOT EXISTS messaging_test_effects (
      id bigserial PRIMARY KEY, message_id text NOT NULL, consumer text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);
    amqp = await harness.connection();
  });

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await harness.dispose();
    if (messageIds.length) {
      await ds.query('DELETE FROM messaging_test_effects WHERE message_id = ANY($1)', [messageIds]);
      await ds.query('DELETE FROM processed_messages WHERE message_id = ANY($1)', [messageIds]);
    }
    await ds.destroy();
  });

  it('gets the message redelivered, and its effect happens exactly once', async () => {
    const proc = spawn(process.execPath, [FIXTURE, TEST_AMQP_URL, queues.queue, TEST_DATABASE_URL, CONSUMER], { stdio: 'pipe' });
    child = proc;
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    await waitFor(() => out.includes('ready') || proc.exitCode !== null, 15_000, 'the crashing consumer to start');
    expect(err).toBe('');

    const messageId = await amqp.publish(TYPE, { leadId: 'L-7', schoolId: 'northfield' });
    messageIds.push(messageId);
    expect(await exited).toBe(0);
    expect(out).toContain(`committed ${messageId}`);
    // The ack never came: the broker put the message back.
    await waitFor(async () => (await queueDepth(queues.queue)) === 1, 10_000, 'the message back in its queue');

    const seen: { redelivered: boolean; firstTime: boolean; messageId: string }[] = [];
    const redeliveries = async () =>
      (await messagingMetrics.redeliveries.get()).values.find((v) => v.labels.consumer === CONSUMER && v.labels.type === TYPE)?.value ?? 0;
    const redeliveriesBefore = await redeliveries();
    const transport = harness.transport(amqp, CONSUMER);
    transport.addHandler(TYPE, async (payload: { leadId: string }, ctx: AmqpContext) => {
      const meta = ctx.getMeta();
      const firstTime = await new ProcessedMessages(ds).runOnce(CONSUMER, meta, async (em) => {
        await em.query('INSERT INTO messaging_test_effects (message_id, consumer) VALUES ($1, $2)', [meta.messageId, CONSUMER]);
      });
      seen.push({ redelivered: ctx.isRedelivery(), firstTime, messageId: meta.messageId });
    });
    await transport.start();

    await waitFor(() => seen.length === 1, 10_000, 'the redelivery');
    await sleep(300);
    expect(seen).toEqual([{ redelivered: true, firstTime: false, messageId }]);
    expect((await redeliveries()) - redeliveriesBefore).toBe(1);
    const rows = await ds.query('SELECT count(*)::int AS n FROM messaging_test_effects WHERE message_id = $1', [messageId]);
    expect(rows[0].n).toBe(1);
    const processed = await ds.query('SELECT count(*)::int AS n FROM processed_messages WHERE consumer = $1 AND message_id = $2', [
      CONSUMER,
      messageId,
    ]);
    expect(processed[0].n).toBe(1);

    // Acked: once the consumer is gone nothing returns to the queue.
    await transport.close();
    expect(await queueDepth(queues.queue)).toBe(0);
    expect(await queueDepth(queues.dlq)).toBe(0);
  });
});
