import type { Channel, ChannelModel, ConfirmChannel, GetMessage, Message, Options } from 'amqplib';
import { DeadLetterSummary, describeDeadLetter, originalRoutingKeyOf } from './dead-letter-info';
import { replayCopyProperties } from './delivery-copies';
import type { ConsumerQueues, Topology } from './topology';

/**
 * The dead-letter queues of the topology, as the operator CLI sees them (`dlq
 * list|show|replay|purge`, docs/runbooks/dead-letters.md). Everything here works
 * on a plain amqplib connection: a short-lived tool has no use for reconnects.
 *
 * Reading without losing or reordering (RabbitMQ 3.10-3.13, quorum queues):
 * - Closing a channel (or losing the connection) gives back its unacked
 *   messages in no useful order once there are more than a handful, so nothing
 *   here leaves messages to the channel close.
 * - A nack with requeue puts a message at the back of a quorum queue without a
 *   delivery limit, in the order of the nacks. So a reader makes one pass over
 *   the whole queue: it reads every message that was there when it started
 *   (basic.get, unacked), and nacks each one it keeps right after reading it.
 *   After the pass the queue holds them in the same order. A message that
 *   arrives during the pass lands among them at the time it arrived.
 * - Acks and nacks are never sent in bursts of more than SETTLE_BURST without a
 *   round trip to the broker. A quorum queue's client (rabbit_fifo_client)
 *   holds back a channel's commands beyond 32 in flight and sends them later,
 *   in reverse order, or never if the channel closes first.
 * - A pass stopped in the middle (the CLI killed, the broker gone) loses
 *   nothing: unacked messages go back. But the queue may then be rotated (the
 *   messages read so far at the back) or, for the unacked ones, shuffled.
 * Each look counts as a delivery in the message's x-delivery-count and sets its
 * redelivered flag; a replayed copy starts without either.
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

/** The first `limit` messages of a DLQ; the pass reads them all and gives every one back in order. */
export async function peekDeadLetters(conn: ChannelModel, queue: string, limit: number): Promise<DeadLetterPeek> {
  const pass = await DeadLetterPass.open(conn, queue);
  try {
    const messages: DeadLetterSummary[] = [];
    for (let msg = await pass.next(); msg; msg = await pass.next()) {
      if (messages.length < limit) messages.push(describeDeadLetter(msg));
      pass.giveBack(msg);
    }
    if (pass.broken) throw new DeadLetterQueueError(`reading ${queue} stopped: ${pass.broken}; nothing was lost`);
    return { queue, depth: pass.depth, messages, maxReturns: pass.maxReturns };
  } finally {
    await pass.close();
  }
}

/**
 * The body of every message of a DLQ, oldest first; each is given back in
 * order, so the queue is left as it was. For a search through what is parked
 * there (a person's deletion looks for their sealed contact data); the caller
 * never prints a body.
 */
export async function deadLetterBodies(conn: ChannelModel, queue: string): Promise<Buffer[]> {
  const pass = await DeadLetterPass.open(conn, queue);
  try {
    const bodies: Buffer[] = [];
    for (let msg = await pass.next(); msg; msg = await pass.next()) {
      bodies.push(msg.content);
      pass.giveBack(msg);
    }
    if (pass.broken) throw new DeadLetterQueueError(`reading ${queue} stopped: ${pass.broken}; nothing was lost`);
    return bodies;
  } finally {
    await pass.close();
  }
}

/**
 * At most this many acks or nacks go out before a round trip to the broker
 * (see the top of this file: a quorum queue's client holds back a channel's
 * commands beyond 32 in flight). Replay copies are published this many at a
 * time before their confirms are awaited together.
 */
const SETTLE_BURST = 8;

/**
 * Republishes selected messages of a DLQ to the queue they failed in, and
 * removes each from the DLQ only once the broker confirmed its own copy.
 * Messages not selected are given back in place.
 */
export async function replayDeadLetters(
  conn: ChannelModel,
  topology: Topology,
  queues: ConsumerQueues,
  opts: ReplayOptions = {},
): Promise<ReplayReport> {
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

  const pass = await DeadLetterPass.open(conn, queues.dlq);
  const copies = new ConfirmedCopies(pass.channel, report.target.exchange, report.target.routingKey);
  const seen = new Set<string>();
  let failure: string | undefined;
  const settle = async () => {
    const settled = await copies.settle();
    for (const { msg, info } of settled.done) {
      pass.remove(msg);
      report.replayed.push(info);
    }
    // A copy that failed keeps its message; the pass goes on, replaying nothing more, so the DLQ keeps its order.
    for (const msg of settled.failed) pass.giveBack(msg);
    failure ??= settled.failure;
    await pass.sync();
  };
  try {
    report.depthBefore = pass.depth;
    for (let msg = await pass.next(); msg; msg = await pass.next()) {
      report.scanned++;
      const info = describeDeadLetter(msg);
      if (info.messageId !== null) seen.add(info.messageId);
      const wantedHere =
        !failure && report.replayed.length + copies.pending < limit && (!wanted || (info.messageId !== null && wanted.has(info.messageId)));
      const refusal = wantedHere ? whyNotReplayable(info, queues) : undefined;
      if (refusal) report.skipped.push({ message: info, reason: refusal });
      if (!wantedHere || refusal || report.dryRun) {
        if (wantedHere && !refusal) report.replayed.push(info);
        pass.giveBack(msg);
      } else {
        copies.publish(msg, info, replayCopyProperties(msg, originalRoutingKeyOf(msg), now()));
        if (copies.pending >= SETTLE_BURST) await settle();
      }
      const total = pass.givenBack > 0 || wanted ? pass.depth : Math.min(pass.depth, limit);
      opts.onProgress?.({ scanned: Math.min(report.scanned, total), total, replayed: report.replayed.length + copies.pending });
      // Nothing given back yet and nothing more to replay: the rest stays where it is, untouched.
      if (pass.givenBack === 0 && report.replayed.length + copies.pending >= limit) break;
    }
    await settle();
    if (pass.broken) failure ??= `the channel to RabbitMQ closed (${pass.broken}); what was not confirmed`;
  } finally {
    report.maxReturns = pass.maxReturns;
    await pass.close();
  }
  if (failure) throw new ReplayInterruptedError(`${failure}; it stays in ${queues.dlq}, and the replay stopped there`, report);
  if (wanted) report.notFound = [...wanted].filter((id) => !seen.has(id));
  return report;
}

/**
 * Replay copies in flight on a confirm channel. Each is `mandatory`: a copy the
 * broker cannot route comes back (basic.return) before its confirm, and is a
 * failure like a nack. settle() waits for every confirm and says which copies
 * are safe, so only their DLQ messages are acked.
 */
class ConfirmedCopies {
  private inFlight: Array<{ msg: GetMessage; info: DeadLetterSummary; outcome: Promise<string | undefined> }> = [];
  private readonly returned = new Set<string>();

  constructor(
    private readonly channel: ConfirmChannel,
    private readonly exchange: string,
    private readonly routingKey: string,
  ) {
    channel.on('return', (m: Message) => this.returned.add(String(m.properties.messageId)));
  }

  get pending(): number {
    return this.inFlight.length;
  }

  publish(msg: GetMessage, info: DeadLetterSummary, properties: Options.Publish): void {
    const id = String(info.messageId);
    const outcome = new Promise<string | undefined>((resolve) => {
      const confirmed = (err: unknown) => {
        if (err) resolve(`the broker did not confirm the copy of ${id}: ${(err as Error).message ?? String(err)}`);
        else resolve(this.returned.has(id) ? `the broker could not route ${id} to its queue` : undefined);
      };
      try {
        this.channel.publish(this.exchange, this.routingKey, msg.content, { ...properties, mandatory: true }, confirmed);
      } catch (e) {
        confirmed(e);
      }
    });
    this.inFlight.push({ msg, info, outcome });
  }

  /** Waits for every copy in flight: the ones confirmed, the messages whose copy failed, and the first failure. */
  async settle(): Promise<{ done: Array<{ msg: GetMessage; info: DeadLetterSummary }>; failed: GetMessage[]; failure?: string }> {
    const batch = this.inFlight;
    this.inFlight = [];
    const outcomes = await Promise.all(batch.map((c) => c.outcome));
    return {
      done: batch.filter((_, i) => outcomes[i] === undefined),
      failed: batch.filter((_, i) => outcomes[i] !== undefined).map((c) => c.msg),
      failure: outcomes.find((o) => o !== undefined),
    };
  }
}

/**
 * One pass over a DLQ (see the top of this file): reads each message that was
 * ready when it opened, once, and the caller gives each back (a nack: to the
 * back, in order) or removes it (an ack, once its copy is confirmed). Never
 * more than SETTLE_BURST acks and nacks without a round trip.
 */
class DeadLetterPass {
  givenBack = 0;
  maxReturns = 0;
  /** Why the pass could not go on (its channel closed); what it held goes back with the channel. */
  broken: string | undefined;
  private read = 0;
  private unsynced = 0;

  private constructor(
    readonly channel: ConfirmChannel,
    readonly queue: string,
    /** Ready messages when the pass opened: it reads no more, so it never meets a message it gave back. */
    readonly depth: number,
  ) {}

  static async open(conn: ChannelModel, queue: string): Promise<DeadLetterPass> {
    const channel = await openChannel(conn, true);
    try {
      return new DeadLetterPass(channel, queue, await readyCount(channel, queue));
    } catch (e) {
      await channel.close().catch(() => undefined);
      throw e;
    }
  }

  /** The next message, or undefined once every message of the pass has been read. */
  async next(): Promise<GetMessage | undefined> {
    if (this.read >= this.depth || this.broken) return undefined;
    let msg: GetMessage | false;
    if (this.unsynced >= SETTLE_BURST) await this.sync();
    if (this.broken) return undefined;
    try {
      msg = await this.channel.get(this.queue, { noAck: false });
    } catch (e) {
      this.broken ??= (e as Error).message;
      return undefined;
    }
    this.unsynced = 0; // a get is a round trip
    if (!msg) {
      this.read = this.depth; // emptied meanwhile (a purge)
      return undefined;
    }
    this.read++;
    this.maxReturns = Math.max(this.maxReturns, returnsOf(msg));
    return msg;
  }

  giveBack(msg: GetMessage): void {
    this.settle(() => this.channel.nack(msg, false, true));
    this.givenBack++;
  }

  remove(msg: GetMessage): void {
    this.settle(() => this.channel.ack(msg));
  }

  private settle(send: () => void): void {
    try {
      send();
      this.unsynced++;
    } catch (e) {
      this.broken ??= (e as Error).message; // the channel closed: the message goes back with it
    }
  }

  /** A round trip, so the acks and nacks sent so far are taken before more follow. */
  async sync(): Promise<void> {
    if (this.unsynced === 0 || this.broken) return;
    try {
      await this.channel.checkQueue(this.queue);
      this.unsynced = 0;
    } catch (e) {
      this.broken ??= (e as Error).message;
    }
  }

  /** Whatever is still unacked (a pass stopped by an error) goes back with the channel, unordered. */
  async close(): Promise<void> {
    await this.sync();
    await this.channel.close().catch(() => undefined);
  }
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
    if ((e as { code?: unknown }).code === 404)
      throw new DeadLetterQueueError(`queue ${queue} does not exist on the broker: no worker of this AMQP_PREFIX has connected yet`);
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
    if ((e as { code?: unknown }).code === 404)
      throw new DeadLetterQueueError(
        `exchange ${topology.exchanges.retry} does not exist: start the worker of ${queues.queue}, then replay`,
      );
    throw e;
  } finally {
    await channel.close().catch(() => undefined);
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
