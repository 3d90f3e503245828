import type { Channel, ChannelModel, ConfirmChannel, GetMessage, Options } from 'amqplib';
import { DeadLetterSummary, describeDeadLetter, originalRoutingKeyOf } from './dead-letter-info';
import { replayCopyProperties } from './delivery-copies';
import type { ConsumerQueues, Topology } from './topology';

/**
 * The dead-letter queues of the topology, as the operator CLI sees them (`dlq
 * list|show|replay|purge`, docs/runbooks/dead-letters.md). Everything here works
 * on a plain amqplib connection: a short-lived tool has no use for reconnects.
 *
 * Reading without losing or reordering: a message is read with basic.get and
 * left unacked; closing the channel gives every unacked message back. A quorum
 * queue keeps messages given back that way in a section of their own, served
 * before all others, and appends to that section: giving back only its first
 * few would put them behind the rest of it. So a reader that gives messages
 * back reads on until it has read the whole section (the first message never
 * delivered before, `redelivered` false, marks its end); then the queue reads
 * exactly as before. (A nack or reject with requeue would instead move them to
 * the back of a quorum queue without a delivery limit.) Each look counts as a
 * delivery in the message's x-delivery-count and sets its redelivered flag; a
 * replayed copy starts without either.
 */

export interface DeadLetterQueueDepth {
  consumer: string;
  queue: string;
  /** Ready messages; null when the queue does not exist (no process of this prefix has connected yet). */
  messages: number | null;
  consumers: number | null;
}

export interface DeadLetterPeek {
  queue: string;
  /** Ready messages when the look started. */
  depth: number;
  /** The first `limit` messages, oldest first. */
  messages: DeadLetterSummary[];
  /** Highest x-delivery-count seen (how often the messages read were given back before). */
  maxReturns: number;
}

export interface ReplayOptions {
  /** Only messages with these ids; all when absent. */
  ids?: readonly string[];
  /** At most this many messages replayed (or, dry, listed). */
  limit?: number;
  dryRun?: boolean;
  now?: () => Date;
  /** After every message read: how far the scan is. */
  onProgress?: (progress: { scanned: number; total: number; replayed: number }) => void;
}

export interface ReplayReport {
  queue: string;
  /** Where the copies went: the retry exchange's direct key reaches the consumer's queue and nothing else. */
  target: { exchange: string; routingKey: string; queue: string };
  dryRun: boolean;
  /** Ready messages when the replay started: it reads no more than these, so a message that fails again is not replayed twice in one run. */
  depthBefore: number;
  scanned: number;
  /** Republished and removed from the DLQ (dry run: would be). */
  replayed: DeadLetterSummary[];
  /** Selected but left in the DLQ, with why. */
  skipped: Array<{ message: DeadLetterSummary; reason: string }>;
  /** Requested ids that were not among the messages read. */
  notFound: string[];
  maxReturns: number;
}

/** The consumer queues of `name` when it is one of the topology's DLQs. */
export function deadLetterQueueNamed(topology: Topology, name: string): ConsumerQueues | undefined {
  return topology.consumers.find((c) => c.dlq === name);
}

export class DeadLetterQueueError extends Error {
  override readonly name = 'DeadLetterQueueError';
}

/** A replay that stopped part-way: `report` says what was done before. Nothing unconfirmed was removed. */
export class ReplayInterruptedError extends DeadLetterQueueError {
  constructor(
    message: string,
    readonly report: ReplayReport,
  ) {
    super(message);
  }
}

export async function deadLetterDepths(conn: ChannelModel, topology: Topology): Promise<DeadLetterQueueDepth[]> {
  const out: DeadLetterQueueDepth[] = [];
  for (const c of topology.consumers) {
    const counts = await queueCounts(conn, c.dlq);
    out.push({ consumer: c.consumer, queue: c.dlq, messages: counts?.messageCount ?? null, consumers: counts?.consumerCount ?? null });
  }
  return out;
}

/** The first `limit` messages of a DLQ, read and given back in place. */
export async function peekDeadLetters(conn: ChannelModel, queue: string, limit: number): Promise<DeadLetterPeek> {
  const channel = await openChannel(conn);
  try {
    const depth = await readyCount(channel, queue);
    const messages: DeadLetterSummary[] = [];
    let maxReturns = 0;
    let last: GetMessage | undefined;
    while (messages.length < Math.min(limit, depth)) {
      const msg = await channel.get(queue, { noAck: false });
      if (!msg) break;
      last = msg;
      maxReturns = Math.max(maxReturns, returnsOf(msg));
      messages.push(describeDeadLetter(msg));
    }
    await readPastGivenBack(channel, queue, last, depth - messages.length);
    return { queue, depth, messages, maxReturns };
  } finally {
    // Gives back everything read, in order, at the head of the queue.
    await channel.close().catch(() => undefined);
  }
}

/**
 * Republishes selected messages of a DLQ to the queue they failed in, each only
 * after the last is confirmed, and removes each from the DLQ only once the
 * broker confirmed its copy. Messages not selected are given back in place.
 */
export async function replayDeadLetters(conn: ChannelModel, topology: Topology, queues: ConsumerQueues, opts: ReplayOptions = {}): Promise<ReplayReport> {
  const now = opts.now ?? (() => new Date());
  const wanted = opts.ids && opts.ids.length > 0 ? new Set(opts.ids) : undefined;
  const limit = opts.limit ?? Number.POSITIVE_INFINITY;
  const report: ReplayReport = {
    queue: queues.dlq,
    target: { exchange: topology.exchanges.retry, routingKey: queues.directRoutingKey, queue: queues.queue },
    dryRun: opts.dryRun ?? false,
    depthBefore: 0,
    scanned: 0,
    replayed: [],
    skipped: [],
    notFound: [],
    maxReturns: 0,
  };
  if (!report.dryRun) await requireTarget(conn, topology, queues);

  const channel = await openChannel(conn, true);
  const seen = new Set<string>();
  let last: GetMessage | undefined;
  let held = 0;
  try {
    report.depthBefore = await readyCount(channel, queues.dlq);
    const total = wanted ? report.depthBefore : Math.min(report.depthBefore, limit);
    while (report.scanned < report.depthBefore && report.replayed.length < limit) {
      const msg = await channel.get(queues.dlq, { noAck: false });
      if (!msg) break;
      last = msg;
      report.scanned++;
      report.maxReturns = Math.max(report.maxReturns, returnsOf(msg));
      const info = describeDeadLetter(msg);
      if (info.messageId !== null) seen.add(info.messageId);
      const selected = !wanted || (info.messageId !== null && wanted.has(info.messageId));
      const refusal = selected ? whyNotReplayable(info, queues) : undefined;
      if (refusal) report.skipped.push({ message: info, reason: refusal });
      held++; // unacked: given back when the channel closes, unless replayed below
      if (!selected || refusal || report.dryRun) {
        if (selected && !refusal) report.replayed.push(info);
      } else {
        const properties = replayCopyProperties(msg, originalRoutingKeyOf(msg), now());
        let outcome: 'confirmed' | 'returned';
        try {
          outcome = await publishMandatory(channel, report.target.exchange, report.target.routingKey, msg.content, properties);
        } catch (e) {
          throw new ReplayInterruptedError(`the broker did not confirm the copy of ${info.messageId}: ${(e as Error).message}; it stays in ${queues.dlq}`, report);
        }
        if (outcome === 'returned') throw new ReplayInterruptedError(`the broker could not route ${info.messageId} to ${queues.queue}; it stays in ${queues.dlq}`, report);
        channel.ack(msg);
        held--;
        report.replayed.push(info);
      }
      opts.onProgress?.({ scanned: Math.min(report.scanned, total), total, replayed: report.replayed.length });
    }
  } finally {
    // Gives back, in place, every message read and not replayed (also when the replay stopped). The close waits for the broker, so the acks are in.
    if (held > 0) await readPastGivenBack(channel, queues.dlq, last, report.depthBefore - report.scanned).catch(() => undefined);
    await channel.close().catch(() => undefined);
  }
  if (wanted) report.notFound = [...wanted].filter((id) => !seen.has(id));
  return report;
}

export async function purgeDeadLetters(conn: ChannelModel, queue: string): Promise<number> {
  const channel = await openChannel(conn);
  try {
    await readyCount(channel, queue);
    return (await channel.purgeQueue(queue)).messageCount;
  } finally {
    await channel.close().catch(() => undefined);
  }
}

/**
 * A warning when looking at a DLQ again may cost messages: RabbitMQ 4 gives
 * quorum queues a default delivery limit of 20, and every look gives a message
 * back once (RabbitMQ 3.x, which this project runs on, has no such default).
 */
export function returnsWarning(conn: ChannelModel, queue: string, maxReturns: number): string | undefined {
  const version = String(conn.connection.serverProperties?.version ?? '');
  const major = Number(/^(\d+)\./.exec(version)?.[1] ?? 0);
  if (major < 4 || maxReturns < 10) return undefined;
  return (
    `messages in ${queue} have been read and given back ${maxReturns} times; RabbitMQ ${version} drops a quorum queue's message ` +
    `after 20 deliveries unless the queue sets x-delivery-limit: replay or purge them rather than reading them again`
  );
}

/** Message and consumer counts, or null when the queue does not exist. */
async function queueCounts(conn: ChannelModel, queue: string): Promise<{ messageCount: number; consumerCount: number } | null> {
  const channel = await openChannel(conn);
  try {
    return await channel.checkQueue(queue);
  } catch (e) {
    if ((e as { code?: unknown }).code === 404) return null;
    throw e;
  } finally {
    await channel.close().catch(() => undefined);
  }
}

async function readyCount(channel: Channel, queue: string): Promise<number> {
  try {
    return (await channel.checkQueue(queue)).messageCount;
  } catch (e) {
    if ((e as { code?: unknown }).code === 404) throw new DeadLetterQueueError(`queue ${queue} does not exist on the broker: no worker of this AMQP_PREFIX has connected yet`);
    throw e;
  }
}

async function requireTarget(conn: ChannelModel, topology: Topology, queues: ConsumerQueues): Promise<void> {
  if ((await queueCounts(conn, queues.queue)) === null) {
    throw new DeadLetterQueueError(`queue ${queues.queue} does not exist: start its worker (it declares the topology), then replay`);
  }
  const channel = await openChannel(conn);
  try {
    await channel.checkExchange(topology.exchanges.retry);
  } catch (e) {
    if ((e as { code?: unknown }).code === 404) throw new DeadLetterQueueError(`exchange ${topology.exchanges.retry} does not exist: start the worker of ${queues.queue}, then replay`);
    throw e;
  } finally {
    await channel.close().catch(() => undefined);
  }
}

/**
 * After reading (and holding) messages, reads on, holding them too, until the
 * section of messages given back before has been read whole (see the top of
 * this file); `budget` bounds it by the ready messages there were.
 */
async function readPastGivenBack(channel: Channel, queue: string, last: GetMessage | undefined, budget: number): Promise<void> {
  for (let left = budget; last?.fields.redelivered && left > 0; left--) {
    const msg = await channel.get(queue, { noAck: false });
    if (!msg) return;
    last = msg;
  }
}

function whyNotReplayable(info: DeadLetterSummary, queues: ConsumerQueues): string | undefined {
  if (info.messageId === null) return 'it has no messageId, so a replay could not be deduplicated';
  if (info.type === null) return 'it has no type, so no handler can take it';
  if (info.originalQueue !== null && info.originalQueue !== queues.queue) {
    return `it failed in ${info.originalQueue}, not in ${queues.queue}`;
  }
  return undefined;
}

function returnsOf(msg: GetMessage): number {
  const n = Number(msg.properties.headers?.['x-delivery-count'] ?? 0);
  return Number.isFinite(n) ? n : 0;
}

/** A channel of its own: a channel error (404 for a missing queue) closes it and nothing else. */
function openChannel(conn: ChannelModel): Promise<Channel>;
function openChannel(conn: ChannelModel, confirm: true): Promise<ConfirmChannel>;
async function openChannel(conn: ChannelModel, confirm = false): Promise<Channel> {
  const channel = confirm ? await conn.createConfirmChannel() : await conn.createChannel();
  // The failing call rejects with the error itself; without a listener the event would crash the process.
  channel.on('error', () => undefined);
  return channel;
}

/** Publishes a mandatory message and waits for its confirm; a message the broker could not route comes back (basic.return) before that. */
async function publishMandatory(
  channel: ConfirmChannel,
  exchange: string,
  routingKey: string,
  content: Buffer,
  properties: Options.Publish,
): Promise<'confirmed' | 'returned'> {
  let returned = false;
  const onReturn = () => (returned = true);
  channel.on('return', onReturn);
  try {
    await new Promise<void>((resolve, reject) => {
      try {
        channel.publish(exchange, routingKey, content, { ...properties, mandatory: true }, (err) =>
          err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(),
        );
      } catch (e) {
        reject(e as Error);
      }
    });
    return returned ? 'returned' : 'confirmed';
  } finally {
    channel.off('return', onReturn);
  }
}
