import { Controller, Delete, Get, HttpCode } from '@nestjs/common';
import { IdempotencyStore } from '../shared/idempotency-store';
import { ReceivedStore, ReceiptLogSummary } from '../shared/received-store';

interface PartnerSummary extends ReceiptLogSummary {
  search_count: number;
  search_total_received: number;
}

const EMPTY: ReceiptLogSummary = { count: 0, total_received: 0, last_received_at: null };

/** The process-wide view: what every simulated school and partner has received. */
@Controller('received')
export class ReceivedController {
  constructor(
    private readonly received: ReceivedStore,
    private readonly keys: IdempotencyStore,
  ) {}

  @Get()
  summary() {
    const schools: Record<string, ReceiptLogSummary> = {};
    const partners: Record<string, PartnerSummary> = {};
    const exchanges: Record<string, PartnerSummary> = {};
    const summaryOf = (of: Record<string, PartnerSummary>, name: string) =>
      (of[name] ??= { ...EMPTY, search_count: 0, search_total_received: 0 });
    for (const { kind, name, summary } of this.received.summaries()) {
      if (kind === 'school') schools[name] = summary;
      else if (kind === 'partner_submit' || kind === 'exchange_submit')
        Object.assign(summaryOf(kind === 'partner_submit' ? partners : exchanges, name), summary);
      else {
        const p = summaryOf(kind === 'partner_search' ? partners : exchanges, name);
        p.search_count = summary.count;
        p.search_total_received = summary.total_received;
      }
    }
    const networks = [...Object.values(partners), ...Object.values(exchanges)];
    const leadCount = [...Object.values(schools), ...networks].reduce((n, s) => n + s.count, 0);
    const searchCount = networks.reduce((n, p) => n + p.search_count, 0);
    // `exchanges` (the exchange protocol's partners) is listed once one of them has received something.
    return { schools, partners, ...(Object.keys(exchanges).length > 0 ? { exchanges } : {}), count: leadCount, search_count: searchCount };
  }

  /** Forgets everything every simulated system received, and every Idempotency-Key. */
  @Delete()
  @HttpCode(200)
  clearAll() {
    this.received.clearAll();
    this.keys.forgetAll();
    return { cleared: true };
  }
}
