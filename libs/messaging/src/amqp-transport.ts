import { EventEmitter } from 'node:events';
import { Logger, OnModuleDestroy } from '@nestjs/common';
import { CustomTransportStrategy, MessageHandler, Server } from '@nestjs/microservices';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { ChannelWrapper } from 'amqp-connection-manager';
import { isObservable, lastValueFrom } from 'rxjs';
import type { AppConfig } from '@lr/config';
import type { MessageMeta } from '@lr/contracts';
import { currentCorrelationId, ReadinessCheck, withCorrelationId } from '@lr/observability';
import { AmqpConnection } from './amqp-connection';
import { AmqpContext } from './amqp-context';
import { DeadLetterDepthGauge } from './dead-letter-depth';
import { DeliverySettlement, Outcome } from './delivery-settlement';
import { DependencyGate } from './dependency-gate';
import { Decoded, decodeDelivery } from './envelope';
import { Forward } from './handler-results';
import { HEADERS } from './headers';
import { messagingMetrics } from './messaging-metrics';
import { QueueDepthGauge } from './queue-depth';
import { ConsumerQueues, declareTopology, queuesOf, typesHandledBy } from './topology';

export const AMQP_TRANSPORT = Symbol('AMQP_TRANSPORT');

/** A listener of the transport's events ('consuming' has no arguments). */
type TransportListener = (...args: never[]) => unknown;

/**
 * A Nest microservice transport that consumes one consumer queue
 * (`<p>.<consumer>`) and dispatches each message by its `type` property to the
 * `@HandleMessage` / `@HandleEvent` (or `@MessagePattern` / `@EventPattern`)
 * handler for that type.
 *
 * - Manual acks, at most config.amqp.prefetch messages in flight.
 * - Success: the reply (if the message has replyTo and the handler is not an
 *   event handler) is published, then the message is acked.
 * - Failure: a copy goes to the back-off queue with x-attempt + 1, or (last try,
 *   PermanentError, unparseable message, no handler) to the consumer's DLQ with
 *   the reason in headers; the original is acked only after the broker
 *   confirmed the copy. If the copy cannot be published the original is
 *   requeued, so a message is never lost.
 * - Failure while a dependency of the worker is down (pauseWhileDown): the
 *   message is put back without counting a try and consuming pauses until the
 *   dependency is back (DependencyGate).
 * - close(): stop consuming, let in-flight handlers finish (bounded by
 *   config.shutdownGraceMs), then close the channel; unfinished messages return
 *   to the queue.
 * - While it runs, it keeps the gauges `messaging_queue_depth` of its queue and
 *   `messaging_dlq_depth` of its DLQ current.
 */
export class AmqpTransport extends Server<Record<string, TransportListener>> implements CustomTransportStrategy, OnModuleDestroy {
  private readonly log: Logger;
  private readonly queues: ConsumerQueues;
  private readonly events = new EventEmitter();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly closedChannels = new WeakSet<ConfirmChannel>();
  private readonly starting = new WeakSet<ConfirmChannel>();
  private readonly settlement: DeliverySettlement;
  private readonly depths: readonly QueueDepthGauge[];
  private readonly gate: DependencyGate;
  private wrapper: ChannelWrapper | undefined;
  /** The channel of the latest (re)connect, where a paused consumer resumes. */
  private latest: ConfirmChannel | undefined;
  private consuming: { channel: ConfirmChannel; consumerTag: string } | undefined;
  private stopping = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly connection: AmqpConnection,
    private readonly config: AppConfig,
    readonly consumer: string,
  ) {
    super();
    this.transportId = AMQP_TRANSPORT;
    this.queues = queuesOf(connection.topology, consumer);
    this.log = new Logger(`AmqpTransport:${consumer}`);
    this.settlement = new DeliverySettlement(connection, config, this.queues, (ch) => this.closedChannels.has(ch), this.log);
    this.depths = [
      new QueueDepthGauge(connection, this.queues.queue, messagingMetrics.queueDepth),
      new DeadLetterDepthGauge(connection, this.queues.dlq),
    ];
    this.gate = new DependencyGate(consumer, this.log, { pause: () => this.stopConsuming(), resume: () => this.resumeConsuming() });
  }

  /**
   * The worker's dependencies (its readiness checks): a handler that fails while
   * one of them is down has its message put back without counting a try, and
   * consuming pauses until they all answer again.
   */
  pauseWhileDown(checks: readonly ReadinessCheck[]): void {
    this.gate.watch(checks);
  }

  /** Starts consuming (Nest calls this from startAllMicroservices). Returns once consuming, or after the dependency timeout if the broker is away. */
  async listen(callback: (err?: unknown, ...rest: unknown[]) => void): Promise<void> {
    try {
      await this.start();
      callback();
    } catch (e) {
      callback(e);
    }
  }

  async start(): Promise<void> {
    if (this.wrapper) return;
    this.warnAboutUnroutedHandlers();
    await this.connection.start();
    const ready = new Promise<void>((resolve) => this.events.once('consuming', resolve));
    this.wrapper = this.connection.createChannel(`consumer:${this.consumer}`, (channel) => this.consume(channel));
    for (const depth of this.depths) depth.start();
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, this.config.dependencyTimeoutMs).unref());
    await Promise.race([ready, timeout]);
  }

  /** Runs on every (re)connect: declare, bound the prefetch, consume (unless paused: see pauseWhileDown). */
  private async consume(channel: ConfirmChannel): Promise<void> {
    if (this.stopping) return;
    this.latest = channel;
    channel.once('close', () => {
      this.closedChannels.add(channel);
      if (this.consuming?.channel === channel) this.consuming = undefined;
      this._status$.next('disconnected');
    });
    await declareTopology(channel, this.connection.topology);
    // The gauges' first reading is skipped while the broker is not yet reached (a slow start-up): read them now it is.
    for (const depth of this.depths) void depth.refresh();
    // Per-consumer limit (global=false): quorum queues do not support a channel-wide one.
    await channel.prefetch(this.config.amqp.prefetch, false);
    if (this.gate.paused) return;
    await this.startConsuming(channel);
  }

  private async startConsuming(channel: ConfirmChannel): Promise<void> {
    // One consumer per channel: a resume and a reconnect's setup may both get here.
    if (this.consuming?.channel === channel || this.starting.has(channel)) return;
    this.starting.add(channel);
    let consumerTag: string;
    try {
      ({ consumerTag } = await channel.consume(
        this.queues.queue,
        (msg) => {
          if (msg) this.track(this.onDelivery(channel, msg));
          else
            this.log.warn(`the broker cancelled the consumer of ${this.queues.queue} (queue deleted?); it resumes on the next reconnect`);
        },
        { noAck: false },
      ));
    } finally {
      this.starting.delete(channel);
    }
    if (this.stopping || this.gate.paused) {
      // Closing, or paused while the consumer was being registered.
      await channel.cancel(consumerTag).catch(() => undefined);
      return;
    }
    this.consuming = { channel, consumerTag };
    this._status$.next('connected');
    this.events.emit('consuming');
  }

  /** Paused: no new deliveries; those in flight finish and settle as usual. */
  private async stopConsuming(): Promise<void> {
    const current = this.consuming;
    this.consuming = undefined;
    if (current) await current.channel.cancel(current.consumerTag);
  }

  /** Back from a pause, on the latest channel (if it died meanwhile, its reconnect consumes). */
  private async resumeConsuming(): Promise<void> {
    const channel = this.latest;
    if (this.stopping || !channel || this.closedChannels.has(channel)) return;
    await this.startConsuming(channel);
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private async onDelivery(channel: ConfirmChannel, msg: ConsumeMessage): Promise<void> {
    if (this.stopping) {
      // Arrived between cancel and cancel-ok: give it back untouched.
      this.settlement.settle(channel, msg, 'requeue');
      return;
    }
    const started = process.hrtime.bigint();
    const decoded = decodeDelivery(msg);
    // Everything from here runs under the message's correlation id: its log lines, and the messages its handler publishes.
    const correlationId = decoded.ok
      ? decoded.meta.correlationId
      : String(msg.properties.correlationId ?? msg.properties.messageId ?? 'none');
    await withCorrelationId(correlationId, () => this.dispatch(channel, msg, decoded, started));
  }

  private async dispatch(channel: ConfirmChannel, msg: ConsumeMessage, decoded: Decoded, started: bigint): Promise<void> {
    const typeLabel = decoded.ok && this.getHandlers().has(decoded.meta.type) ? decoded.meta.type : 'unrouted';
    if (msg.fields.redelivered) messagingMetrics.redeliveries.inc({ consumer: this.consumer, type: typeLabel });
    let outcome: Outcome;
    if (!decoded.ok) {
      outcome = await this.settlement.deadLetter(channel, msg, undefined, decoded.reason, decoded.attempt, 'malformed', typeLabel);
    } else {
      outcome = await this.handle(channel, msg, decoded.meta, decoded.payload, typeLabel);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    messagingMetrics.handlerDuration.observe({ consumer: this.consumer, type: typeLabel, outcome }, seconds);
    // One structured line per message, carrying the correlation id (the gateway's request id, for work an affiliate started).
    const line = {
      msg: 'message handled',
      consumer: this.consumer,
      type: decoded.ok ? decoded.meta.type : typeLabel,
      message_id: decoded.ok ? decoded.meta.messageId : msg.properties.messageId,
      correlation_id: currentCorrelationId(),
      attempt: decoded.ok ? decoded.meta.attempt : undefined,
      outcome,
      duration_ms: Math.round(seconds * 1000),
    };
    if (outcome === 'ack') this.log.log(line);
    else this.log.warn(line);
  }

  private async handle(
    channel: ConfirmChannel,
    msg: ConsumeMessage,
    meta: MessageMeta,
    payload: unknown,
    typeLabel: string,
  ): Promise<Outcome> {
    const handler = this.getHandlers().get(meta.type);
    if (!handler) {
      return this.settlement.deadLetter(
        channel,
        msg,
        meta,
        `no handler for ${meta.type} in consumer ${this.consumer}`,
        meta.attempt,
        'no_handler',
        typeLabel,
      );
    }
    const ctx = new AmqpContext([msg, meta, this.consumer]);
    let result: unknown;
    try {
      result = await this.invoke(handler, payload, ctx);
    } catch (thrown) {
      const error = ctx.failure ? ctx.failure.error : thrown;
      messagingMetrics.handlerFailures.inc({ consumer: this.consumer, type: typeLabel });
      const down = await this.gate.blame();
      if (down.length > 0) return this.settlement.defer(channel, msg, meta, error, down, typeLabel);
      return this.settlement.failed(channel, msg, meta, error, typeLabel);
    }
    if (result instanceof Forward) {
      const forwarded = await this.forward(channel, msg, meta, result, typeLabel);
      if (forwarded) return forwarded;
    } else if (msg.properties.replyTo && !handler.isEventHandler) {
      await this.settlement.reply(msg.properties.replyTo, meta, 'ok', result ?? null);
    }
    return this.settlement.settle(channel, msg, 'ack');
  }

  /**
   * Publishes the next message of a routing slip with this request's reply
   * queue and the original request's id, before the ack. If it cannot be
   * published the delivery counts as failed (retried like a handler error:
   * the handler's effects are idempotent). Undefined once it is sent.
   */
  private async forward(
    channel: ConfirmChannel,
    msg: ConsumeMessage,
    meta: MessageMeta,
    next: Forward,
    typeLabel: string,
  ): Promise<Outcome | undefined> {
    const replyTo = msg.properties.replyTo as string | undefined;
    try {
      await this.connection.publish(next.type, next.payload, {
        ...next.opts,
        correlationId: meta.correlationId,
        ...(replyTo ? { replyTo, headers: { ...next.opts.headers, [HEADERS.replyFor]: meta.replyFor ?? meta.messageId } } : {}),
      });
      return undefined;
    } catch (e) {
      messagingMetrics.handlerFailures.inc({ consumer: this.consumer, type: typeLabel });
      return this.settlement.failed(channel, msg, meta, e, typeLabel);
    }
  }

  /** Runs the handler, and for events every further handler Nest chained on the same pattern. */
  private async invoke(handler: MessageHandler, payload: unknown, ctx: AmqpContext): Promise<unknown> {
    let result: unknown;
    for (let h: MessageHandler | undefined = handler; h; h = h.next) {
      const out: unknown = await h(payload, ctx);
      result = isObservable(out) ? await lastValueFrom(out, { defaultValue: undefined }) : out;
    }
    return result;
  }

  /** Stops taking work, waits for in-flight handlers (at most config.shutdownGraceMs), closes the channel. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.drain();
    return this.closing;
  }

  async onModuleDestroy(): Promise<void> {
    // Before other modules tear down what handlers use (a Redis client, say), and before Nest's dispose calls close().
    await this.close();
  }

  private async drain(): Promise<void> {
    this.stopping = true;
    const gaugesStopped = Promise.all(this.depths.map((d) => d.stop())); // no new readings; one under way may finish
    this.gate.stop();
    const current = this.consuming;
    if (current) await current.channel.cancel(current.consumerTag).catch(() => undefined);
    if (this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const finished = await Promise.race([
        Promise.allSettled([...this.inFlight]).then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), this.config.shutdownGraceMs))),
      ]);
      clearTimeout(timer);
      if (!finished)
        this.log.warn(`${this.inFlight.size} message(s) still in flight after ${this.config.shutdownGraceMs} ms; they return to the queue`);
    }
    await this.wrapper?.close().catch(() => undefined);
    await gaugesStopped;
    this._status$.next('disconnected');
  }

  /** Transport events: 'consuming' (emitted after each (re)connect once the consumer is registered). */
  on<EventKey extends string = string, EventCallback extends TransportListener = TransportListener>(
    event: EventKey,
    callback: EventCallback,
  ): void {
    this.events.on(event, callback as unknown as (...args: unknown[]) => void);
  }

  unwrap<T>(): T {
    if (!this.wrapper) throw new Error('AmqpTransport is not listening');
    return this.wrapper as T;
  }

  /** A handler for a type this consumer's queue never receives is a wiring mistake worth a loud log line. */
  private warnAboutUnroutedHandlers(): void {
    const routed = new Set(typesHandledBy(this.connection.topology, this.consumer));
    for (const pattern of this.getHandlers().keys()) {
      if (!routed.has(pattern))
        this.log.warn(`handler for "${pattern}" will never run: the topology routes it to another consumer (or nowhere)`);
    }
    for (const type of routed) {
      if (!this.getHandlers().has(type)) this.log.warn(`no handler for "${type}": such messages will be dead-lettered`);
    }
  }
}
