import { Inject, Injectable } from '@nestjs/common';
import { BoundedMap } from './bounded-map';
import { SANDBOX_OPTIONS, SandboxOptions } from './sandbox-options';

/** One request the sandbox received, as `GET …/received` shows it. */
export interface Receipt {
  received_at: string;
  /** The caller's X-Request-Id when it sent a well-formed one (what a school's or partner's system would log), else the sandbox's own request id. */
  request_id: string;
  /** What the sandbox was told to do with it (URL outcome, or X-Sandbox-Outcome). */
  outcome: string;
  delay_ms: number;
  /** The subset of RECORDED_HEADERS the caller sent, by lower-case name. */
  headers: Record<string, string>;
  body: unknown;
}

/** What is recorded: a school's leads, a partner's submits and searches, an exchange partner's submits and searches. */
export type ReceiptKind = 'school' | 'partner_submit' | 'partner_search' | 'exchange_submit' | 'exchange_search';

interface ReceiptLog {
  items: Receipt[];
  total: number;
}

export interface ReceiptLogSummary {
  count: number;
  total_received: number;
  last_received_at: string | null;
}

/**
 * Every received lead, submit and search, in memory, newest last; the last
 * `maxReceiptsPerName` per name are kept, `total_received` counts all since the
 * last clear.
 */
@Injectable()
export class ReceivedStore {
  private readonly logs: BoundedMap<string, ReceiptLog>;

  constructor(@Inject(SANDBOX_OPTIONS) private readonly options: SandboxOptions) {
    this.logs = new BoundedMap(options.maxNames * 5);
  }

  record(kind: ReceiptKind, name: string, receipt: Receipt): void {
    const log = this.logs.touch(keyOf(kind, name), () => ({ items: [], total: 0 }));
    log.items.push(receipt);
    log.total += 1;
    if (log.items.length > this.options.maxReceiptsPerName) log.items.shift();
  }

  /** The newest `limit` receipts, oldest first. */
  list(kind: ReceiptKind, name: string, limit = this.options.maxReceiptsPerName): { items: Receipt[]; summary: ReceiptLogSummary } {
    const log = this.logs.get(keyOf(kind, name));
    const items = log ? log.items.slice(Math.max(0, log.items.length - limit)) : [];
    return { items, summary: summarize(log) };
  }

  clear(kind: ReceiptKind, name: string): number {
    const log = this.logs.get(keyOf(kind, name));
    this.logs.delete(keyOf(kind, name));
    return log?.items.length ?? 0;
  }

  clearAll(): void {
    this.logs.clear();
  }

  /** Every name with something recorded, by kind. */
  summaries(): Array<{ kind: ReceiptKind; name: string; summary: ReceiptLogSummary }> {
    const out: Array<{ kind: ReceiptKind; name: string; summary: ReceiptLogSummary }> = [];
    for (const [key, log] of this.logs.entries()) {
      const at = key.indexOf('/');
      out.push({ kind: key.slice(0, at) as ReceiptKind, name: key.slice(at + 1), summary: summarize(log) });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  get maxPerName(): number {
    return this.options.maxReceiptsPerName;
  }
}

function keyOf(kind: ReceiptKind, name: string): string {
  return `${kind}/${name}`;
}

function summarize(log: ReceiptLog | undefined): ReceiptLogSummary {
  const last = log?.items[log.items.length - 1];
  return { count: log?.items.length ?? 0, total_received: log?.total ?? 0, last_received_at: last?.received_at ?? null };
}
