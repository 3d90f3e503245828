import { Logger } from '@nestjs/common';
import type { Gauge } from 'prom-client';
import { PeriodicReading } from '@lr/observability';
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
  private readonly reading: PeriodicReading<number>;

  constructor(
    private readonly connection: AmqpConnection,
    readonly queue: string,
    gauge: Gauge<string>,
    intervalMs = QUEUE_DEPTH_INTERVAL_MS,
  ) {
    this.reading = new PeriodicReading(
      intervalMs,
      async () => {
        if (!this.connection.isConnected()) return undefined;
        const { messageCount } = await this.connection.checkQueue(this.queue);
        gauge.set({ queue: this.queue }, messageCount);
        return messageCount;
      },
      // Connected, yet no answer (the queue deleted, the broker slow): said once, not every interval.
      (e) => this.connection.isConnected() && this.log.warn(`cannot read the depth of ${this.queue}: ${errorMessage(e)}`),
    );
  }

  /** Reads now, then every interval. Idempotent. */
  start(): void {
    this.reading.start();
  }

  /** One reading (shared with a reading already under way): the depth, or undefined when the broker could not say. */
  refresh(): Promise<number | undefined> {
    return this.reading.refresh();
  }

  stop(): Promise<void> {
    return this.reading.stop();
  }
}
