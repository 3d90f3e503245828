import * as amqplib from 'amqplib';
import { Logger } from '@nestjs/common';
import { AppConfig } from '@lr/config';
import { AmqpConnection, AmqpConnectionOptions, AmqpTransport, MessageRoute, Topology, allQueueNames, buildTopology } from '@lr/messaging';
import { TEST_AMQP_URL, testConfig, uniqueSuffix } from '../../support/test-env';

// Dead-lettering and outages are expected here and log at warn/error; MESSAGING_TEST_LOGS=1 shows them.
if (!process.env.MESSAGING_TEST_LOGS) Logger.overrideLogger(false);

/** A test file's own config and topology: a unique prefix, one consumer, test message types. */
export function messagingTestSetup(consumer: string, routes: MessageRoute[], env: Record<string, string> = {}) {
  const suffix = uniqueSuffix();
  const config = testConfig('delivery', suffix, env);
  const topology = buildTopology({ prefix: config.amqp.prefix, retryDelaysMs: config.amqp.retryDelaysMs, routes, consumers: [consumer] });
  return { config, topology };
}

/** Tracks what a test opens so afterAll closes it in the right order and deletes the declared topology. */
export class Harness {
  private readonly transports: AmqpTransport[] = [];
  private readonly connections: AmqpConnection[] = [];

  constructor(
    readonly config: AppConfig,
    readonly topology: Topology,
  ) {}

  async connection(opts: AmqpConnectionOptions = {}, config: AppConfig = this.config): Promise<AmqpConnection> {
    const c = new AmqpConnection(config, { topology: this.topology, reconnectDelayMs: 200, ...opts });
    this.connections.push(c);
    await c.start();
    return c;
  }

  transport(connection: AmqpConnection, consumer: string, config: AppConfig = this.config): AmqpTransport {
    const t = new AmqpTransport(connection, config, consumer);
    this.transports.push(t);
    return t;
  }

  async dispose(): Promise<void> {
    for (const t of this.transports) await t.close();
    for (const c of this.connections) await c.close();
    await deleteTopology(this.topology);
  }
}

/** A direct amqplib connection for looking at queues the way ops tooling would. */
export async function withAdminChannel<T>(fn: (ch: amqplib.Channel) => Promise<T>): Promise<T> {
  const conn = await amqplib.connect(TEST_AMQP_URL);
  try {
    const ch = await conn.createChannel();
    try {
      return await fn(ch);
    } finally {
      await ch.close().catch(() => undefined);
    }
  } finally {
    await conn.close().catch(() => undefined);
  }
}

export async function deleteTopology(topology: Topology): Promise<void> {
  await withAdminChannel(async (ch) => {
    for (const q of allQueueNames(topology)) await ch.deleteQueue(q);
    for (const e of topology.declarations.exchanges) await ch.deleteExchange(e.name);
  });
}

export async function queueDepth(queue: string): Promise<number> {
  return withAdminChannel(async (ch) => (await ch.checkQueue(queue)).messageCount);
}

/** Takes every message from a queue (acking them), e.g. to read a DLQ. */
export async function drainQueue(queue: string): Promise<amqplib.GetMessage[]> {
  return withAdminChannel(async (ch) => {
    const out: amqplib.GetMessage[] = [];
    for (;;) {
      const m = await ch.get(queue, { noAck: true });
      if (!m) return out;
      out.push(m);
    }
  });
}

export async function waitFor<T>(probe: () => T | Promise<T>, timeoutMs = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export { uniqueSuffix };
