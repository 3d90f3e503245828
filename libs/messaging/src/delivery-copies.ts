import type { ConsumeMessage, Message, Options } from 'amqplib';
import type { MessageMeta } from '@lr/contracts';
import { HEADERS, truncateUtf8 } from './headers';
import type { ConsumerQueues } from './topology';

/** Headers RabbitMQ adds when it dead-letters (here: a wait queue's TTL); our own headers tell the story instead. */
const BROKER_DEATH_HEADERS = [
  'x-death',
  'x-first-death-exchange',
  'x-first-death-queue',
  'x-first-death-reason',
  'x-last-death-exchange',
  'x-last-death-queue',
  'x-last-death-reason',
];

/** What a failure or a look at the DLQ left on a dead-lettered copy; a replayed copy starts without it. */
const FAILURE_HEADERS = [
  ...BROKER_DEATH_HEADERS,
  // Quorum queues count returns (every `dlq show` returns what it read).
  'x-delivery-count',
  HEADERS.deathReason,
  HEADERS.attempts,
  HEADERS.lastError,
  HEADERS.firstFailureAt,
  HEADERS.originalQueue,
];

/**
 * Properties for a retry copy: the same message (id, type, correlation,
 * timestamp, replyTo) with the next attempt number and the last error, bound for
 * the wait queue of its back-off.
 */
export function retryCopyProperties(
  msg: ConsumeMessage,
  queues: ConsumerQueues,
  nextAttempt: number,
  error: string,
  now: Date,
): Options.Publish {
  const headers = baseHeaders(msg, queues, now);
  headers[HEADERS.attempt] = nextAttempt;
  headers[HEADERS.lastError] = truncateUtf8(error);
  return copyOf(msg, headers);
}

/** Properties for the dead-lettered copy: the same message plus why, after how many tries, and where from. */
export function deadLetterProperties(
  msg: ConsumeMessage,
  queues: ConsumerQueues,
  reason: string,
  attempts: number,
  now: Date,
): Options.Publish {
  const headers = baseHeaders(msg, queues, now);
  delete headers[HEADERS.lastError];
  headers[HEADERS.deathReason] = truncateUtf8(reason);
  headers[HEADERS.attempts] = attempts;
  headers[HEADERS.attempt] = attempts;
  return copyOf(msg, headers);
}

/**
 * Properties for a `dlq replay` copy: the same message (id, type, correlation,
 * timestamp, body) as a fresh first try (x-attempt 1, so it gets the whole retry
 * budget again), without the failure headers. It keeps x-original-routing-key,
 * because the copy travels under the consumer's direct key. No replyTo: whoever
 * waited for an answer got the dead-letter error long ago. `mandatory`, so a
 * copy the broker cannot route comes back instead of vanishing.
 */
export function replayCopyProperties(msg: Message, originalRoutingKey: string | null, now: Date): Options.Publish {
  const headers: Record<string, unknown> = { ...(msg.properties.headers ?? {}) };
  for (const h of FAILURE_HEADERS) delete headers[h];
  if (originalRoutingKey !== null) headers[HEADERS.originalRoutingKey] = originalRoutingKey;
  headers[HEADERS.attempt] = 1;
  headers[HEADERS.replayedAt] = now.toISOString();
  const properties = copyOf(msg, headers);
  delete properties.replyTo;
  return { ...properties, mandatory: true };
}

/**
 * Properties of a reply: correlated by the request's correlationId and
 * messageId (x-in-reply-to; for a forwarded request, the original request's).
 * A raw reply (bytes the requester sends on as they are) is
 * application/octet-stream, with its own headers.
 */
export function replyProperties(
  meta: MessageMeta,
  appId: string,
  status: 'ok' | 'error',
  messageId: string,
  raw?: { headers: Record<string, string> },
): Options.Publish {
  return {
    // The reply queue is transient; a reply outliving a broker restart would have nobody to read it.
    persistent: false,
    contentType: raw ? 'application/octet-stream' : 'application/json',
    contentEncoding: 'utf-8',
    messageId,
    type: meta.type,
    timestamp: Math.floor(Date.now() / 1000),
    correlationId: meta.correlationId,
    appId,
    headers: { ...raw?.headers, [HEADERS.replyStatus]: status, [HEADERS.inReplyTo]: meta.replyFor ?? meta.messageId },
  };
}

function baseHeaders(msg: ConsumeMessage, queues: ConsumerQueues, now: Date): Record<string, unknown> {
  const headers: Record<string, unknown> = { ...(msg.properties.headers ?? {}) };
  for (const h of BROKER_DEATH_HEADERS) delete headers[h];
  headers[HEADERS.firstFailureAt] ??= now.toISOString();
  // A retry comes back under the consumer's direct key; the first failure saw the real one.
  headers[HEADERS.originalRoutingKey] ??= msg.fields.routingKey;
  headers[HEADERS.originalQueue] = queues.queue;
  return headers;
}

function copyOf(msg: Message, headers: Record<string, unknown>): Options.Publish {
  const p = msg.properties;
  return {
    persistent: true,
    contentType: p.contentType,
    contentEncoding: p.contentEncoding,
    messageId: p.messageId,
    type: p.type,
    timestamp: p.timestamp,
    correlationId: p.correlationId,
    replyTo: p.replyTo,
    appId: p.appId,
    headers,
  };
}
