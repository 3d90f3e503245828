/**
 * Header names the transport writes. Ops tooling (`dlq show`) and replays read
 * the same names, so they live in one place.
 */
export const HEADERS = {
  /** Version of the message type (the `.vN` suffix of its name), for consumers that branch on it. */
  version: 'x-version',
  /** 1 on the first delivery; each retry copy carries the next number. */
  attempt: 'x-attempt',
  /** The error of the previous try, on retry copies (truncated). */
  lastError: 'x-last-error',
  /** On dead-lettered copies: why the message was given up. */
  deathReason: 'x-death-reason',
  /** On dead-lettered copies: how many tries were made. */
  attempts: 'x-attempts',
  /** ISO time of the first failed try; kept on retry copies and the dead-lettered copy. */
  firstFailureAt: 'x-first-failure-at',
  /** The consumer queue the message failed in. */
  originalQueue: 'x-original-queue',
  /** The routing key the message was first published with (retries travel under another key). */
  originalRoutingKey: 'x-original-routing-key',
  /** On replies: `ok` (body is the handler's answer) or `error` (body is `{ error }`). */
  replyStatus: 'x-reply-status',
  /** On replies: the messageId of the request answered, so concurrent requests sharing a correlationId stay apart. */
  inReplyTo: 'x-in-reply-to',
  /**
   * On a message a handler forwarded instead of replying (a routing slip): the
   * messageId of the request its reply answers. The last handler of the slip
   * replies to the original replyTo with this as x-in-reply-to.
   */
  replyFor: 'x-reply-for',
  /** On copies `dlq replay` sent back to their queue: when (ISO time). */
  replayedAt: 'x-replayed-at',
} as const;

/** Header values are capped: a stack trace must not bloat every retry copy. */
export const MAX_ERROR_HEADER_BYTES = 1024;

export function truncateUtf8(text: string, maxBytes = MAX_ERROR_HEADER_BYTES): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return text;
  // Cut on a character boundary: decoding a split multi-byte sequence would leave U+FFFD.
  let end = maxBytes;
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

/** `search.requested.v1` -> 1. Every type name carries its version (contracts/messages.ts). */
export function versionOf(type: string): number {
  const m = /\.v(\d+)$/.exec(type);
  if (!m) throw new Error(`message type "${type}" has no version suffix (.vN)`);
  return Number(m[1]);
}
