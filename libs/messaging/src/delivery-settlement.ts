import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import type { AppConfig } from '@lr/config';
import type { MessageMeta } from '@lr/contracts';
import type { AmqpConnection } from './amqp-connection';
import { deadLetterProperties, replyProperties, retryCopyProperties } from './delivery-copies';
import { encodeJson } from './envelope';
import { RawReply } from './handler-results';
import { retryDelayMs } from './backoff';
import { decideOnFailure, errorMessage } from './failure-policy';
import { messagingMetrics } from './messaging-metrics';
import { ConsumerQueues, retryLevelOf } from './topology';

export type Outcome = 'ack' | 'retry' | 'deferred' | 'dead_letter' | 'requeue' | 'abandoned';
export type DeadLetterCause = 'exhausted' | 'permanent' | 'malformed' | 'no_handler';

/**
 * How a delivery ends: ack, a retry copy, a dead-letter copy, or requeue. The
 * rule that keeps messages safe lives here: the original is acked only after
 * the broker confirmed its copy; if the copy cannot be published the original
 * is requeued; if the delivery's channel already died nothing is copied (the
 * broker redelivers the original, and a copy would duplicate it).
 */
export class DeliverySettlement {
  constructor(
    private readonly connection: AmqpConnection,
    private readonly config: AppConfig,
    private readonly queues: ConsumerQueues,
    private readonly isClosed: (channel: ConfirmChannel) => boolean,
    private readonly log: Logger,
  ) {}

  /** The handler threw on try `meta.attempt`: retry after the back-off, or give up. */
  async failed(channel: ConfirmChannel, msg: ConsumeMessage, meta: MessageMeta, error: unknown, typeLabel: string): Promise<Outcome> {
    const { maxAttempts, retryDelaysMs } = this.config.amqp;
    const decision = decideOnFailure(error, meta.attempt, maxAttempts, retryDelaysMs);
    if (decision.action === 'dead-letter') {
      const cause: DeadLetterCause = meta.attempt >= maxAttempts ? 'exhausted' : 'permanent';
      return this.deadLetter(channel, msg, meta, decision.reason, meta.attempt, cause, typeLabel);
    }
    this.log.warn(`${meta.type} ${meta.messageId} failed on try ${meta.attempt}; retrying in ${decision.delayMs} ms: ${decision.error}`);
    const level = retryLevelOf(this.queues, decision.delayMs);
    const properties = retryCopyProperties(msg, this.queues, decision.nextAttempt, decision.error, new Date());
    const copied = await this.copy(channel, msg, this.connection.topology.exchanges.retry, level.routingKey, properties);
    if (copied !== 'ack') return copied;
    messagingMetrics.retried.inc({ consumer: this.queues.consumer, type: typeLabel });
    return 'retry';
  }

  /**
   * The handler failed while dependencies of the worker were `down`: the
   * outage's fault, not the message's. Back after the first back-off, with the
   * same try number.
   */
  async defer(
    channel: ConfirmChannel,
    msg: ConsumeMessage,
    meta: MessageMeta,
    error: unknown,
    down: string[],
    typeLabel: string,
  ): Promise<Outcome> {
    const reason = errorMessage(error);
    this.log.warn(`${meta.type} ${meta.messageId} put back, try ${meta.attempt} not counted (${down.join(', ')} unavailable): ${reason}`);
    const level = retryLevelOf(this.queues, retryDelayMs(1, this.config.amqp.retryDelaysMs));
    const properties = retryCopyProperties(msg, this.queues, meta.attempt, reason, new Date());
    const copied = await this.copy(channel, msg, this.connection.topology.exchanges.retry, level.routingKey, properties);
    if (copied !== 'ack') return copied;
    messagingMetrics.deferred.inc({ consumer: this.queues.consumer, type: typeLabel });
    return 'deferred';
  }

  async deadLetter(
    channel: ConfirmChannel,
    msg: ConsumeMessage,
    meta: MessageMeta | undefined,
    reason: string,
    attempts: number,
    cause: DeadLetterCause,
    typeLabel: string,
  ): Promise<Outcome> {
    this.log.error(`dead-lettering ${String(msg.properties.type)} ${String(msg.properties.messageId)} after ${attempts} tries: ${reason}`);
    const properties = deadLetterProperties(msg, this.queues, reason, attempts, new Date());
    const copied = await this.copy(channel, msg, this.connection.topology.exchanges.dlx, this.queues.dlqRoutingKey, properties);
    if (copied !== 'ack') return copied;
    messagingMetrics.deadLettered.inc({ consumer: this.queues.consumer, type: typeLabel, cause });
    // A requester would otherwise wait for its timeout: tell it now.
    if (meta && msg.properties.replyTo) await this.reply(msg.properties.replyTo, meta, 'error', { error: reason });
    return 'dead_letter';
  }

  /** Best effort: if the reply cannot be sent the requester times out, and the work is done, so the message is still acked. */
  async reply(replyTo: string, meta: MessageMeta, status: 'ok' | 'error', body: unknown): Promise<void> {
    try {
      const raw = body instanceof RawReply ? body : undefined;
      const properties = replyProperties(meta, this.config.app, status, randomUUID(), raw);
      await this.connection.send('', replyTo, raw ? raw.body : encodeJson(body), () => properties);
    } catch (e) {
      this.log.warn(`could not reply to ${meta.type} ${meta.messageId}: ${errorMessage(e)}`);
    }
  }

  settle(channel: ConfirmChannel, msg: ConsumeMessage, how: 'ack' | 'requeue'): Outcome {
    try {
      if (how === 'ack') channel.ack(msg);
      else channel.nack(msg, false, true);
      return how;
    } catch {
      // Channel gone: the broker redelivers the message to the next consumer.
      return 'abandoned';
    }
  }

  private async copy(
    channel: ConfirmChannel,
    msg: ConsumeMessage,
    exchange: string,
    routingKey: string,
    properties: Options.Publish,
  ): Promise<Outcome> {
    if (this.isClosed(channel)) return 'abandoned';
    try {
      await this.connection.send(exchange, routingKey, msg.content, () => properties);
    } catch (e) {
      this.log.error(`could not publish the ${exchange} copy of ${String(msg.properties.messageId)}; requeueing it: ${errorMessage(e)}`);
      return this.settle(channel, msg, 'requeue');
    }
    return this.settle(channel, msg, 'ack');
  }
}
