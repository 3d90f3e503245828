import type { Message } from 'amqplib';
import { HEADERS } from './headers';
import { POISON_DELIVERY_LIMIT } from './topology';

/**
 * What an operator may see of a dead-lettered message: its identity and the
 * story of its failure, read from the headers the transport (or the broker)
 * wrote. Never the body: it holds contact data.
 */
export interface DeadLetterSummary {
  messageId: string | null;
  type: string | null;
  correlationId: string | null;
  /** x-death-reason, or for a message the broker parked itself, the broker's reason. */
  reason: string | null;
  /** Tries made (x-attempts); for a message the broker parked, the try it was on. */
  attempts: number | null;
  /** ISO time of the first failed try. */
  firstFailureAt: string | null;
  /** The consumer queue it failed in. */
  originalQueue: string | null;
  /** The routing key it was first published with. */
  originalRoutingKey: string | null;
  /** ISO time it was first published (the AMQP timestamp, whole seconds). */
  publishedAt: string | null;
}

/** One entry of the broker's x-death header (amqplib decodes its time as `{ '!': 'timestamp', value: seconds }`). */
interface XDeath {
  reason?: unknown;
  queue?: unknown;
  time?: unknown;
  'routing-keys'?: unknown;
}

export function describeDeadLetter(msg: Message): DeadLetterSummary {
  const p = msg.properties;
  const h: Record<string, unknown> = p.headers ?? {};
  const death = firstDeath(h);
  return {
    messageId: text(p.messageId),
    type: text(p.type),
    correlationId: text(p.correlationId),
    reason: text(h[HEADERS.deathReason]) ?? brokerReason(text(h['x-first-death-reason']) ?? text(death?.reason)),
    attempts: count(h[HEADERS.attempts]) ?? count(h[HEADERS.attempt]),
    firstFailureAt: text(h[HEADERS.firstFailureAt]) ?? isoOfSeconds(death?.time),
    originalQueue: text(h[HEADERS.originalQueue]) ?? text(h['x-first-death-queue']) ?? text(death?.queue),
    originalRoutingKey: originalRoutingKeyOf(msg),
    publishedAt: isoOfSeconds(p.timestamp),
  };
}

/** The key the message was first published with: our header, else the broker's record of the dead-lettering. */
export function originalRoutingKeyOf(msg: Message): string | null {
  const h: Record<string, unknown> = msg.properties.headers ?? {};
  const keys = firstDeath(h)?.['routing-keys'];
  return text(h[HEADERS.originalRoutingKey]) ?? (Array.isArray(keys) ? text(keys[0]) : null);
}

function brokerReason(reason: string | null): string | null {
  if (reason === 'delivery_limit') {
    return `delivery_limit: the broker parked it after ${POISON_DELIVERY_LIMIT} deliveries without an ack (a worker crashed or hung on it)`;
  }
  return reason === null ? null : `broker: ${reason}`;
}

function firstDeath(headers: Record<string, unknown>): XDeath | undefined {
  const deaths = headers['x-death'];
  // The broker puts the most recent dead-lettering first; the oldest tells where the message started.
  return Array.isArray(deaths) && deaths.length > 0 ? (deaths[deaths.length - 1] as XDeath) : undefined;
}

function text(value: unknown): string | null {
  if (typeof value === 'string') return value === '' ? null : value;
  if (Buffer.isBuffer(value)) return value.length === 0 ? null : value.toString('utf8');
  return null;
}

function count(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 0 ? n : null;
}

function isoOfSeconds(value: unknown): string | null {
  const seconds = typeof value === 'number' ? value : value && typeof value === 'object' ? (value as { value?: unknown }).value : undefined;
  return typeof seconds === 'number' && Number.isFinite(seconds) ? new Date(seconds * 1000).toISOString() : null;
}
