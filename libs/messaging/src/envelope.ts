import type { ConsumeMessage, Options } from 'amqplib';
import type { MessageMeta } from '@lr/contracts';
import { HEADERS, versionOf } from './headers';

export interface PublishOptions {
  /** Defaults to a new UUID. Keep it when re-publishing the same message: handlers dedupe on it. */
  messageId?: string;
  /**
   * Ties the message to what caused it. Defaults to the correlation id of the
   * HTTP request or message being handled (AmqpConnection), else the messageId.
   */
  correlationId?: string;
  headers?: Record<string, unknown>;
  /** Where the reply goes (a forwarded request keeps its requester's reply queue). */
  replyTo?: string;
}

/** Properties of a message as first published: persistent JSON, with id, type, version, correlation and time. */
export function outgoingProperties(appId: string, type: string, messageId: string, opts: PublishOptions): Options.Publish {
  return {
    persistent: true,
    contentType: 'application/json',
    contentEncoding: 'utf-8',
    messageId,
    type,
    // AMQP timestamps are whole seconds since the epoch.
    timestamp: Math.floor(Date.now() / 1000),
    correlationId: opts.correlationId ?? messageId,
    appId,
    ...(opts.replyTo ? { replyTo: opts.replyTo } : {}),
    headers: { ...opts.headers, [HEADERS.version]: versionOf(type), [HEADERS.attempt]: 1 },
  };
}

export function encodeJson(payload: unknown): Buffer {
  const text = JSON.stringify(payload);
  if (text === undefined) throw new TypeError('message payload must be JSON-serialisable (got undefined or a function)');
  return Buffer.from(text, 'utf8');
}

export type Decoded = { ok: true; meta: MessageMeta; payload: unknown } | { ok: false; reason: string; attempt: number };

/**
 * Metadata and JSON body of a delivery. A message without id or type cannot be
 * handled idempotently or routed to a handler, and a body that is not JSON will
 * never parse on a retry either: both are reported for the dead-letter queue.
 */
export function decodeDelivery(msg: ConsumeMessage): Decoded {
  const p = msg.properties;
  const headers = p.headers ?? {};
  const attempt = positiveInt(headers[HEADERS.attempt]) ?? 1;
  if (typeof p.messageId !== 'string' || p.messageId === '') return { ok: false, reason: 'message has no messageId property', attempt };
  if (typeof p.type !== 'string' || p.type === '') return { ok: false, reason: 'message has no type property', attempt };
  let payload: unknown;
  try {
    payload = JSON.parse(msg.content.toString('utf8'));
  } catch (e) {
    // Newer V8 messages quote the text that failed to parse; a lead's contact data must not reach a log or a header.
    const detail = (e as Error).message.split('"')[0].replace(/[\s,]+$/, '');
    return { ok: false, reason: `invalid JSON body (${msg.content.length} bytes): ${detail}`, attempt };
  }
  const version = positiveInt(headers[HEADERS.version]) ?? safeVersion(p.type);
  const replyFor = headers[HEADERS.replyFor];
  const meta: MessageMeta = {
    messageId: p.messageId,
    type: p.type,
    version,
    correlationId: typeof p.correlationId === 'string' && p.correlationId !== '' ? p.correlationId : p.messageId,
    timestamp: typeof p.timestamp === 'number' ? new Date(p.timestamp * 1000) : new Date(),
    attempt,
    ...(typeof replyFor === 'string' && replyFor !== '' ? { replyFor } : {}),
  };
  return { ok: true, meta, payload };
}

function safeVersion(type: string): number {
  try {
    return versionOf(type);
  } catch {
    return 0;
  }
}

function positiveInt(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 1 ? n : undefined;
}
