import { Logger } from '@nestjs/common';
import type { Gauge } from 'prom-client';
import type { AmqpConnection } from './amqp-connection';
import { errorMessage } from './failure-policy';

/** How often a worker reads the depth of its own queues (its work queue and its DLQ). */
export const QUEUE_DEPTH_INTERVAL_MS = 15_000;

/**
 * Keeps a gauge `{queue}` of one queue's ready messages current: every
 * worker's transport reads its own consumer's queues (checkQueue on a
 * throwaway channel) every QUEUE_DEPTH_INTERVAL_MS, so the metric exists
 * wherever the worker runs, with no extra exporter. While the broker cannot be
 * asked, nothing is read and the last value stays (`messaging_broker_connected`
 * says why); it never throws. Several replicas report the same value under
 * their own `app`/instance labels: aggregate with max(), not sum().
 */
export class QueueDepthGauge {
  private readonly log = new Logger(QueueDepthGauge.name);
  private timer: NodeJS.Timeout | undefined;
  private pending: Promise<number | undefined> | undefined;
  private failing = false;

  constructor(
    private readonly connection: AmqpConnection,
    readonly queue: string,
    private readonly gauge: Gauge<string>,
    private readonly intervalMs = QUEUE_DEPTH_INTERVAL_MS,
  ) {}

  /** Reads now, then every interval. Idempotent. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.refresh(), this.intervalMs);
    this.timer.unref();
    void this.refresh();
  }

  /** One reading (shared with a reading already under way): the depth, or undefined when the broker could not say. */
  refresh(): Promise<number | undefined> {
    this.pending ??= this.read().finally(() => (this.pending = undefined));
    return this.pending;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.pending;
  }

  private async read(): Promise<number | undefined> {
    if (!this.connection.isConnected()) return undefined;
    try {
      const { messageCount } = await this.connection.checkQueue(this.queue);
      this.gauge.set({ queue: this.queue }, messageCount);
      this.failing = false;
      return messageCount;
    } catch (e) {
      // Connected, yet no answer (the queue deleted, the broker slow): say so once, not every interval.
      if (!this.failing && this.connection.isConnected()) this.log.warn(`cannot read the depth of ${this.queue}: ${errorMessage(e)}`);
      this.failing = true;
      return undefined;
    }
  }
}
