import { execFileSync } from 'node:child_process';
import {
  AmqpConnection,
  allQueueNames,
  buildTopology,
  consumerQueueNames,
  deadLetterQueueNames,
  declareTopology,
  topologyFor,
} from '@lr/messaging';
import { TEST_AMQP_VHOST, testConfig, uniqueSuffix } from '../../support/test-env';
import { deleteTopology, withAdminChannel } from './support';

/** The product topology (all consumers, the default back-off) as the broker sees it. */
const config = testConfig('gateway', uniqueSuffix(), { AMQP_RETRY_DELAYS_MS: '1000,5000,15000,60000' });
const topology = topologyFor(config);

interface BrokerQueue {
  name: string;
  type: string;
  durable: boolean;
  arguments: Record<string, unknown>;
}

function brokerQueues(): BrokerQueue[] {
  const json = execFileSync(
    'rabbitmqctl',
    ['-q', 'list_queues', '-p', TEST_AMQP_VHOST, 'name', 'type', 'durable', 'arguments', '--formatter', 'json'],
    { encoding: 'utf8' },
  );
  return (JSON.parse(json) as BrokerQueue[]).filter((q) => q.name.startsWith(`${config.amqp.prefix}.`));
}

/** rabbitmqctl prints arguments as [name, type, value] triples (3.10), or as an object in other versions. */
function argsOf(q: BrokerQueue): Record<string, unknown> {
  const raw = q.arguments as unknown;
  if (!Array.isArray(raw)) return raw as Record<string, unknown>;
  return Object.fromEntries((raw as unknown[][]).map((entry) => [entry[0], entry[entry.length - 1]]));
}

describe('messaging: the declared topology on the broker', () => {
  let amqp: AmqpConnection;

  beforeAll(async () => {
    amqp = new AmqpConnection(config);
    await amqp.start();
  });

  afterAll(async () => {
    await amqp.close();
    await deleteTopology(topology);
  });

  it('declares every queue as a durable quorum queue, with back-off wait queues', () => {
    const queues = brokerQueues();
    const durableNames = queues
      .filter((q) => !q.name.includes('.reply.'))
      .map((q) => q.name)
      .sort();
    expect(durableNames).toEqual([...allQueueNames(topology)].sort());
    for (const q of queues.filter((x) => !x.name.includes('.reply.'))) {
      expect([q.name, q.type, q.durable]).toEqual([q.name, 'quorum', true]);
    }
    const wait = queues.find((q) => q.name === `${config.amqp.prefix}.delivery.retry.5000`)!;
    expect(argsOf(wait)).toMatchObject({
      'x-message-ttl': 5000,
      'x-dead-letter-exchange': topology.exchanges.retry,
      'x-dead-letter-routing-key': 'delivery',
    });
    expect(consumerQueueNames(topology)).toHaveLength(4);
    expect(deadLetterQueueNames(topology)).toEqual(consumerQueueNames(topology).map((n) => `${n}.dlq`));
    // One exclusive reply queue per connection, gone with it.
    const reply = queues.filter((q) => q.name.includes('.reply.'));
    expect(reply).toHaveLength(1);
    expect(reply[0].durable).toBe(false);
  });

  it('is idempotent: declaring again changes nothing', async () => {
    const before = brokerQueues().filter((q) => !q.name.includes('.reply.'));
    await withAdminChannel(async (ch) => {
      await declareTopology(ch, topology);
      await declareTopology(ch, topology);
    });
    const after = brokerQueues().filter((q) => !q.name.includes('.reply.'));
    expect(after).toEqual(before);
  });

  it('refuses to start when a queue exists with other arguments (a deploy error, not something to paper over)', async () => {
    const other = testConfig('delivery', uniqueSuffix());
    const clashing = buildTopology({
      prefix: other.amqp.prefix,
      retryDelaysMs: other.amqp.retryDelaysMs,
      consumers: ['delivery'],
      routes: [],
    });
    // An old classic queue under the name the topology wants as a quorum queue.
    await withAdminChannel((ch) => ch.assertQueue(`${other.amqp.prefix}.delivery`, { durable: true }));
    const conn = new AmqpConnection(other, { topology: clashing, reconnectDelayMs: 200 });
    try {
      await expect(conn.start()).rejects.toThrow(/PRECONDITION_FAILED/);
      expect(conn.isConnected()).toBe(false);
    } finally {
      await conn.close();
      await deleteTopology(clashing);
    }
  });
});
