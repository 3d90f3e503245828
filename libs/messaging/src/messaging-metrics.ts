import { counter, gauge, histogram } from '@lr/observability';

/** Prometheus metrics of the messaging layer (one registry per process, see @lr/observability). */
export const messagingMetrics = {
  handlerDuration: histogram(
    'messaging_handler_duration_seconds',
    'Time from delivery to ack of a message, by consumer, type and outcome (ack, retry, dead_letter, requeue)',
    ['consumer', 'type', 'outcome'],
  ),
  handlerFailures: counter('messaging_handler_failures_total', 'Handler runs that threw, by consumer and type', ['consumer', 'type']),
  redeliveries: counter(
    'messaging_redeliveries_total',
    'Deliveries the broker flagged as redelivered (an earlier consumer died or lost its channel before settling them), by consumer and type',
    ['consumer', 'type'],
  ),
  retried: counter('messaging_messages_retried_total', 'Messages sent to a retry (back-off) queue, by consumer and type', [
    'consumer',
    'type',
  ]),
  deferred: counter(
    'messaging_messages_deferred_total',
    'Messages put back without counting a try because a dependency of the worker was down, by consumer and type',
    ['consumer', 'type'],
  ),
  consumerPaused: gauge('messaging_consumer_paused', '1 while the consumer is paused because a dependency of the worker is down', [
    'consumer',
  ]),
  deadLettered: counter(
    'messaging_messages_dead_lettered_total',
    'Messages parked in a dead-letter queue, by consumer, type and cause (exhausted, permanent, malformed, no_handler)',
    ['consumer', 'type', 'cause'],
  ),
  publishFailures: counter('messaging_publish_failures_total', 'Publishes refused or not confirmed in time, by type', ['type']),
  requestTimeouts: counter('messaging_request_timeouts_total', 'Requests that got no reply in time, by type', ['type']),
  lateReplies: counter('messaging_late_replies_total', 'Replies that arrived after their request had timed out'),
  connected: gauge('messaging_broker_connected', '1 while the process holds a usable connection to RabbitMQ'),
  dlqDepth: gauge(
    'messaging_dlq_depth',
    'Ready messages in a dead-letter queue, read by its consumer every 15 s (the last reading stays while the broker cannot be asked)',
    ['queue'],
  ),
  queueDepth: gauge(
    'messaging_queue_depth',
    'Ready messages waiting in a consumer queue (its backlog), read by its consumer every 15 s (the last reading stays while the broker cannot be asked)',
    ['queue'],
  ),
};
