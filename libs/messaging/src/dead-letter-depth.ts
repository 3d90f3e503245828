import type { AmqpConnection } from './amqp-connection';
import { messagingMetrics } from './messaging-metrics';
import { QUEUE_DEPTH_INTERVAL_MS, QueueDepthGauge } from './queue-depth';

/** How often a worker reads its DLQ's depth. */
export const DLQ_DEPTH_INTERVAL_MS = QUEUE_DEPTH_INTERVAL_MS;

/** Keeps `messaging_dlq_depth{queue}` of one DLQ current (QueueDepthGauge). */
export class DeadLetterDepthGauge extends QueueDepthGauge {
  constructor(connection: AmqpConnection, queue: string, intervalMs = DLQ_DEPTH_INTERVAL_MS) {
    super(connection, queue, messagingMetrics.dlqDepth, intervalMs);
  }
}
