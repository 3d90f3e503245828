import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import { RemoteHandlerError, RequestTimeoutError } from './errors';
import { RawReply } from './handler-results';
import { HEADERS } from './headers';
import { messagingMetrics } from './messaging-metrics';
import { replyQueueName } from './topology';

interface Pending {
  type: string;
  correlationId: string;
  /** The reply queue the request named in replyTo, once written. */
  queue?: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * The requesting side of request/reply. Each connection gets one exclusive,
 * auto-delete reply queue (`<p>.reply.<uuid>`, consumed without acks: a reply
 * nobody waits for any more is worthless). Replies are matched to the waiting
 * request by the request's messageId, which the replier echoes in
 * `x-in-reply-to`, falling back to the correlationId: two requests that share a
 * correlationId (the same HTTP request id sent twice) still get their own answers.
 */
export class ReplyRouter {
  private readonly pending = new Map<string, Pending>();
  private readonly log = new Logger('AmqpReplies');

  constructor(private readonly prefix: string) {}

  /** Declares and consumes a fresh reply queue on a new channel; returns its name. */
  async attach(channel: ConfirmChannel): Promise<string> {
    // A new name per connection: the old exclusive queue may linger until the broker notices its owner died.
    const queue = replyQueueName(this.prefix, randomUUID());
    await channel.assertQueue(queue, { exclusive: true, autoDelete: true, durable: false });
    await channel.consume(queue, (msg) => msg && this.onReply(msg), { noAck: true });
    return queue;
  }

  /** Starts waiting for the reply to request `messageId`; rejects with RequestTimeoutError after `timeoutMs`. */
  expect(messageId: string, correlationId: string, type: string, timeoutMs: number): Promise<unknown> {
    // Thrown, not returned: the caller must not publish a second request under the same id.
    if (this.pending.has(messageId)) throw new Error(`a request with messageId ${messageId} is already waiting for its reply`);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(messageId);
        messagingMetrics.requestTimeouts.inc({ type });
        reject(new RequestTimeoutError(type, timeoutMs));
      }, timeoutMs);
      this.pending.set(messageId, { type, correlationId, resolve, reject, timer });
    });
  }

  /** The request is about to be written with replyTo `queue`. */
  bind(messageId: string, queue: string): void {
    const p = this.pending.get(messageId);
    if (p) p.queue = queue;
  }

  /**
   * The connection that owned `queue` is gone, and the exclusive queue with it:
   * replies to requests that named it can never arrive, so their callers hear it
   * now instead of at their timeout. Requests still waiting to be written are kept.
   */
  abandonQueue(queue: string, error: Error): void {
    for (const [id, p] of this.pending) {
      if (p.queue !== queue) continue;
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(error);
    }
  }

  /** The request could not be sent: stop waiting. */
  cancel(messageId: string): void {
    const p = this.pending.get(messageId);
    if (!p) return;
    clearTimeout(p.timer);
    this.pending.delete(messageId);
  }

  rejectAll(error: Error): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(error);
    }
  }

  private onReply(msg: ConsumeMessage): void {
    const key = this.keyFor(msg);
    const p = key === undefined ? undefined : this.pending.get(key);
    if (!p || key === undefined) {
      // Its request timed out (or was never ours): the caller has already been answered.
      messagingMetrics.lateReplies.inc();
      this.log.debug(`dropped a reply nobody waits for (correlationId ${String(msg.properties.correlationId)})`);
      return;
    }
    clearTimeout(p.timer);
    this.pending.delete(key);
    if (msg.properties.contentType === 'application/octet-stream' && msg.properties.headers?.[HEADERS.replyStatus] !== 'error') {
      const headers = Object.fromEntries(Object.entries(msg.properties.headers ?? {}).filter(([, v]) => typeof v === 'string')) as Record<
        string,
        string
      >;
      p.resolve(new RawReply(msg.content, headers));
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(msg.content.toString('utf8'));
    } catch (e) {
      p.reject(new Error(`reply to ${p.type} is not valid JSON: ${(e as Error).message}`));
      return;
    }
    if (msg.properties.headers?.[HEADERS.replyStatus] === 'error') {
      p.reject(new RemoteHandlerError(p.type, String((body as { error?: unknown } | null)?.error ?? 'unknown error')));
      return;
    }
    p.resolve(body);
  }

  private keyFor(msg: ConsumeMessage): string | undefined {
    const inReplyTo = msg.properties.headers?.[HEADERS.inReplyTo];
    if (typeof inReplyTo === 'string' && this.pending.has(inReplyTo)) return inReplyTo;
    const correlationId = msg.properties.correlationId;
    for (const [id, p] of this.pending) if (p.correlationId === correlationId) return id;
    return undefined;
  }
}
