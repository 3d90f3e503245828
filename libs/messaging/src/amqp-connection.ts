import { randomUUID } from 'node:crypto';
import { Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { ChannelModel, ConfirmChannel, Options } from 'amqplib';
import { AmqpConnectionManagerClass, ChannelWrapper } from 'amqp-connection-manager';
import type { AppConfig } from '@lr/config';
import { currentCorrelationId } from '@lr/observability';
import { PublishOptions, encodeJson, outgoingProperties } from './envelope';
import { BrokerUnavailableError, ReplyLostError } from './errors';
import { messagingMetrics } from './messaging-metrics';
import { ReadyChannel } from './ready-channel';
import { ReplyRouter } from './reply-router';
import { Topology, declareTopology, routeOf, topologyFor } from './topology';

export interface AmqpConnectionOptions {
  /** Defaults to the product topology of the config (topologyFor). Tests pass their own routes. */
  topology?: Topology;
  /** Pause between reconnect attempts. */
  reconnectDelayMs?: number;
  /** AMQP heartbeat: how fast a silently dead broker is noticed (about twice this). */
  heartbeatSeconds?: number;
}

export interface RequestOptions extends PublishOptions {
  /** Total time to wait for the reply, publishing included. */
  timeoutMs: number;
  /** Called once the broker has confirmed the request: from then on it is durable in its queue. */
  onSent?: () => void;
}

/**
 * A message published while a request or another message is handled carries
 * that one's correlation id unless the caller names one, so a single id
 * follows the work from the gateway's HTTP request through every hop.
 */
function withCurrentCorrelation<T extends PublishOptions>(opts: T): T {
  return opts.correlationId === undefined ? { ...opts, correlationId: currentCorrelationId() } : opts;
}

interface PublishingChannel {
  channel: ConfirmChannel;
  replyQueue: string;
}

/**
 * The process's one connection to RabbitMQ (amqp-connection-manager: it
 * reconnects by itself and re-runs every channel's setup, which re-declares the
 * topology, after a broker restart). Publishes on a confirm channel and resolves
 * only once the broker has confirmed, so a resolved publish is on disk in a
 * quorum queue. Never buffers: while the broker is away, publishes and requests
 * fail within config.dependencyTimeoutMs (BrokerUnavailableError) so callers can
 * answer 503; a message is therefore never sent "later" behind a caller's back.
 */
export class AmqpConnection implements OnModuleInit, OnApplicationShutdown {
  readonly topology: Topology;
  private readonly log = new Logger(AmqpConnection.name);
  private readonly publishing: ReadyChannel<PublishingChannel>;
  private readonly replies: ReplyRouter;
  private readonly reconnectDelayMs: number;
  private readonly heartbeatSeconds: number;
  private manager: AmqpConnectionManagerClass | undefined;
  private started: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private setupError: Error | undefined;

  constructor(
    private readonly config: AppConfig,
    opts: AmqpConnectionOptions = {},
  ) {
    this.topology = opts.topology ?? topologyFor(config);
    this.reconnectDelayMs = opts.reconnectDelayMs ?? 1000;
    this.heartbeatSeconds = opts.heartbeatSeconds ?? 5;
    this.publishing = new ReadyChannel(config.dependencyTimeoutMs);
    this.replies = new ReplyRouter(this.topology.prefix);
  }

  async onModuleInit(): Promise<void> {
    await this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }

  /**
   * Connects and declares the topology. Waits at most the dependency timeout: a
   * broker that is down at boot must not keep the process from starting (it
   * reports not-ready and connects when the broker is back). A topology the
   * broker refuses (a queue exists with other arguments) is a deploy error and
   * fails start-up. Idempotent.
   */
  start(): Promise<void> {
    this.started ??= this.doStart();
    return this.started;
  }

  private async doStart(): Promise<void> {
    const manager = new AmqpConnectionManagerClass([this.config.amqp.url], {
      heartbeatIntervalInSeconds: this.heartbeatSeconds,
      reconnectTimeInSeconds: this.reconnectDelayMs / 1000,
      connectionOptions: {
        timeout: this.config.dependencyTimeoutMs,
        // amqplib leaves Nagle's algorithm on: a small publish or ack then waits for the
        // broker's delayed ACK (up to 40 ms) whenever an earlier frame is unacknowledged,
        // which turns every request/reply hop into tens of milliseconds under load.
        noDelay: true,
        clientProperties: { connection_name: `lead-router:${this.config.app}` },
      },
    });
    this.manager = manager;
    manager.on('connect', () => this.log.log('connected to RabbitMQ'));
    manager.on('disconnect', ({ err }) => {
      messagingMetrics.connected.set(0);
      if (!this.closing) this.log.warn(`disconnected from RabbitMQ: ${err?.message ?? 'closed'}`);
    });
    manager.on('connectFailed', ({ err }) => this.log.warn(`cannot connect to RabbitMQ: ${err.message}`));
    this.createChannel('publisher', async (channel) => {
      await declareTopology(channel, this.topology);
      const replyQueue = await this.replies.attach(channel);
      channel.once('close', () =>
        this.replies.abandonQueue(replyQueue, new ReplyLostError('lost the RabbitMQ connection while waiting for the reply')),
      );
      this.publishing.ready({ channel, replyQueue });
      this.setupError = undefined;
      messagingMetrics.connected.set(1);
    });
    manager.connect().catch(() => undefined);
    try {
      await this.publishing.acquire(Date.now() + this.config.dependencyTimeoutMs);
    } catch {
      if (this.setupError) throw this.setupError;
      this.log.warn(`RabbitMQ not reachable at start-up; will keep trying every ${this.reconnectDelayMs} ms`);
    }
  }

  /** True while the publishing channel is set up (topology declared, reply queue consumed). */
  isConnected(): boolean {
    return !this.closing && !!this.manager?.isConnected() && this.publishing.get() !== undefined;
  }

  /**
   * One round trip to the broker: an empty message no queue is bound to, on the
   * publishing channel, resolved by its confirm. Unlike isConnected() it also
   * notices a broker (or network path) that keeps the connection open but
   * answers nothing. Rejects with BrokerUnavailableError after `timeoutMs`.
   */
  async ping(timeoutMs = this.config.dependencyTimeoutMs): Promise<void> {
    // The default exchange routes by queue name, and no queue has this one: the broker drops it and confirms.
    await this.send('', `${this.topology.prefix}.ping.unrouted`, Buffer.alloc(0), () => ({ persistent: false }), Date.now() + timeoutMs);
  }

  /**
   * Publishes a message of a routed type (see MESSAGE_ROUTES) and resolves with
   * its messageId once the broker confirmed it. Rejects within
   * config.dependencyTimeoutMs when the broker cannot take it.
   */
  async publish<T>(type: string, payload: T, opts: PublishOptions = {}): Promise<string> {
    const { exchange, routingKey } = routeOf(this.topology, type);
    const messageId = opts.messageId ?? randomUUID();
    const content = encodeJson(payload);
    const properties = outgoingProperties(this.config.app, type, messageId, withCurrentCorrelation(opts));
    try {
      await this.send(exchange, routingKey, content, () => properties);
    } catch (e) {
      messagingMetrics.publishFailures.inc({ type });
      throw e;
    }
    return messageId;
  }

  /**
   * Publishes a request and resolves with the handler's reply. Rejects with
   * RequestTimeoutError after `timeoutMs` (a later reply is dropped), with
   * BrokerUnavailableError when it cannot be published, with ReplyLostError
   * when it was published but the connection carrying the reply dropped, and
   * with RemoteHandlerError when the handler failed for good.
   */
  async request<TReq, TRes>(type: string, payload: TReq, opts: RequestOptions): Promise<TRes> {
    const { exchange, routingKey } = routeOf(this.topology, type);
    const messageId = opts.messageId ?? randomUUID();
    const content = encodeJson(payload);
    const properties = outgoingProperties(this.config.app, type, messageId, withCurrentCorrelation(opts));
    const reply = this.replies.expect(messageId, String(properties.correlationId), type, opts.timeoutMs);
    reply.catch(() => undefined); // observed below; keeps an early timeout from counting as unhandled
    const publishDeadline = Date.now() + Math.min(opts.timeoutMs, this.config.dependencyTimeoutMs);
    try {
      const withReplyTo = (p: PublishingChannel) => {
        this.replies.bind(messageId, p.replyQueue);
        return { ...properties, replyTo: p.replyQueue };
      };
      await this.send(exchange, routingKey, content, withReplyTo, publishDeadline);
    } catch (e) {
      this.replies.cancel(messageId);
      messagingMetrics.publishFailures.inc({ type });
      throw e;
    }
    opts.onSent?.();
    return (await reply) as TRes;
  }

  /**
   * Publishes raw bytes to an exchange and waits for the broker's confirm. The
   * transport's retry, dead-letter and reply copies go through here. A message
   * is written at most once: if its channel dies before the confirm, the caller
   * gets an error rather than a silent resend (which could deliver it twice).
   */
  async send(
    exchange: string,
    routingKey: string,
    content: Buffer,
    properties: (p: PublishingChannel) => Options.Publish,
    deadline = Date.now() + this.config.dependencyTimeoutMs,
  ): Promise<void> {
    for (;;) {
      const target = await this.publishing.acquire(deadline);
      let written = false;
      try {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new BrokerUnavailableError(`RabbitMQ did not confirm the message within the deadline`)),
            Math.max(0, deadline - Date.now()),
          );
          const done = (err: unknown) => {
            clearTimeout(timer);
            if (err) reject(new BrokerUnavailableError(`RabbitMQ did not take the message: ${(err as Error).message ?? String(err)}`));
            else resolve();
          };
          try {
            target.channel.publish(exchange, routingKey, content, properties(target), done);
            written = true;
          } catch (e) {
            clearTimeout(timer);
            reject(e);
          }
        });
        return;
      } catch (e) {
        // Refused before anything was written (the channel had just closed): safe to try the next channel.
        if (!written && Date.now() < deadline && !this.closing) continue;
        throw e instanceof BrokerUnavailableError ? e : new BrokerUnavailableError((e as Error).message);
      }
    }
  }

  /**
   * Message and consumer counts of a queue (e.g. a DLQ's depth for its gauge),
   * read on a throwaway channel, so a missing queue (404) closes only that
   * channel. Fails fast with BrokerUnavailableError when not connected, and
   * within config.dependencyTimeoutMs when the broker does not answer.
   */
  async checkQueue(queue: string): Promise<{ messageCount: number; consumerCount: number }> {
    // amqp-connection-manager holds what amqplib's connect() returned (its typings call it a Connection).
    const model = this.manager?.connection as unknown as ChannelModel | undefined;
    if (!model || !this.isConnected()) throw new BrokerUnavailableError('not connected to RabbitMQ');
    const work = (async () => {
      const channel = await model.createChannel();
      channel.on('error', () => undefined); // the failing call rejects with it
      try {
        return await channel.checkQueue(queue);
      } finally {
        await channel.close().catch(() => undefined);
      }
    })();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new BrokerUnavailableError(`RabbitMQ did not answer about ${queue} in time`)),
        this.config.dependencyTimeoutMs,
      );
    });
    work.catch(() => undefined); // a late failure after the timeout is not unhandled
    try {
      const { messageCount, consumerCount } = await Promise.race([work, timeout]);
      return { messageCount, consumerCount };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A channel on the shared connection whose `setup` runs on every (re)connect.
   * A channel the broker closes while the connection stays up (a channel-level
   * error) would otherwise never come back, so the connection is recycled.
   */
  createChannel(name: string, setup: (channel: ConfirmChannel) => Promise<void>): ChannelWrapper {
    const manager = this.requireManager();
    let latest: ConfirmChannel | undefined;
    let closedOnPurpose = false;
    const wrapper = manager.createChannel({
      name,
      confirm: true,
      setup: async (channel: ConfirmChannel) => {
        latest = channel;
        const connection = manager.connection;
        channel.once('close', () => {
          const timer = setTimeout(() => {
            if (this.closing || closedOnPurpose || latest !== channel || !connection || manager.connection !== connection) return;
            this.log.warn(`channel ${name} closed while the connection stayed up; reconnecting`);
            manager.reconnect();
          }, this.reconnectDelayMs);
          timer.unref();
        });
        try {
          await setup(channel);
        } catch (e) {
          this.setupError = e as Error;
          this.log.error(`setting up channel ${name} failed: ${(e as Error).message}`);
          throw e;
        }
      },
    });
    // ChannelWrapper emits 'close' only for its own close(), before the channel's close completes.
    wrapper.once('close', () => (closedOnPurpose = true));
    wrapper.on('error', (err: Error) => this.log.error(`channel ${name}: ${err.message}`));
    return wrapper;
  }

  /** Closes the connection: pending requests are rejected; publishing after this fails. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.publishing.close();
      this.replies.rejectAll(new BrokerUnavailableError('the AMQP connection is closing'));
      messagingMetrics.connected.set(0);
      await this.manager?.close().catch((e: Error) => this.log.warn(`closing the AMQP connection: ${e.message}`));
    })();
    return this.closing;
  }

  private requireManager(): AmqpConnectionManagerClass {
    if (!this.manager) throw new Error('AmqpConnection.start() has not been called');
    return this.manager;
  }
}
