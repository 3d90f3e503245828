import type { DeadLetterPeek, DeadLetterQueueDepth, DeadLetterSummary, ReplayReport } from '@lr/messaging';
import { scrubContactData } from '@lr/observability';
import { formatTable } from '../text-table';

/** In the table a reason is cut here; --json carries it whole (still redacted). */
const REASON_WIDTH = 160;

/** A dead-lettered message as the CLI shows it: ids, type and the failure, never the body; the reason scrubbed of contact data like a log line. */
export function summaryJson(m: DeadLetterSummary) {
  return {
    message_id: m.messageId,
    type: m.type,
    correlation_id: m.correlationId,
    reason: m.reason === null ? null : scrubContactData(m.reason),
    attempts: m.attempts,
    first_failure_at: m.firstFailureAt,
    original_queue: m.originalQueue,
    original_routing_key: m.originalRoutingKey,
    published_at: m.publishedAt,
  };
}

export function depthsJson(rows: DeadLetterQueueDepth[]) {
  return rows.map((r) => ({
    queue: r.queue,
    consumer: r.consumer,
    declared: r.messages !== null,
    messages: r.messages,
    consumers: r.consumers,
  }));
}

export function depthsTable(rows: DeadLetterQueueDepth[]): string[] {
  return formatTable(
    [{ header: 'QUEUE' }, { header: 'CONSUMER' }, { header: 'MESSAGES', align: 'right' }, { header: 'CONSUMERS', align: 'right' }],
    rows.map((r) => [
      r.queue,
      r.consumer,
      r.messages === null ? '- (not declared)' : String(r.messages),
      r.consumers === null ? '-' : String(r.consumers),
    ]),
  );
}

export function peekJson(peek: DeadLetterPeek) {
  return { queue: peek.queue, depth: peek.depth, shown: peek.messages.length, messages: peek.messages.map(summaryJson) };
}

export function peekLines(peek: DeadLetterPeek): string[] {
  const n = peek.depth;
  const head = `${peek.queue}: ${n} message${n === 1 ? '' : 's'}${n > peek.messages.length ? `, showing the first ${peek.messages.length}` : ''}`;
  return peek.messages.length === 0 ? [head] : [head, ...messagesTable(peek.messages)];
}

export function messagesTable(messages: DeadLetterSummary[]): string[] {
  const dash = (v: string | number | null) => (v === null ? '-' : String(v));
  return formatTable(
    ['MESSAGE ID', 'TYPE', 'ATTEMPTS', 'FIRST FAILURE', 'ORIGINAL QUEUE', 'ORIGINAL ROUTING KEY', 'CORRELATION ID', 'REASON'].map(
      (header) => ({
        header,
        align: header === 'ATTEMPTS' ? ('right' as const) : undefined,
      }),
    ),
    messages.map((m) => {
      const j = summaryJson(m);
      return [
        dash(j.message_id),
        dash(j.type),
        dash(j.attempts),
        dash(j.first_failure_at),
        dash(j.original_queue),
        dash(j.original_routing_key),
        dash(j.correlation_id),
        j.reason === null ? '-' : oneLine(j.reason, REASON_WIDTH),
      ];
    }),
  );
}

export function replayJson(r: ReplayReport) {
  return {
    queue: r.queue,
    target_queue: r.target.queue,
    dry_run: r.dryRun,
    depth_before: r.depthBefore,
    scanned: r.scanned,
    replayed: r.replayed.map(summaryJson),
    skipped: r.skipped.map((s) => ({ ...summaryJson(s.message), skipped_because: s.reason })),
    not_found: r.notFound,
  };
}

/** The one line every replay ends with. */
export function replaySummary(r: ReplayReport): string {
  const n = r.replayed.length;
  const messages = `${n} message${n === 1 ? '' : 's'}`;
  const read = `read ${r.scanned} of ${r.depthBefore}`;
  const skipped = r.skipped.length > 0 ? `, ${r.skipped.length} skipped` : '';
  return r.dryRun
    ? `dry run: would replay ${messages} from ${r.queue} to ${r.target.queue} (${read}${skipped}); nothing changed`
    : `replayed ${messages} from ${r.queue} to ${r.target.queue} (${read}${skipped}; ${r.depthBefore - n} of the ${r.depthBefore} still in the DLQ)`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
