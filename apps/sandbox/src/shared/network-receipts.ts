import type { IdempotencyStore } from './idempotency-store';
import type { ReceiptKind, ReceivedStore } from './received-store';

/** Where a simulated partner network keeps its submits and its searches. */
export interface NetworkKinds {
  submits: Extract<ReceiptKind, 'partner_submit' | 'exchange_submit'>;
  searches: Extract<ReceiptKind, 'partner_search' | 'exchange_search'>;
}

/** A partner network's receipts as `GET …/received` lists them: submits under `leads` (as for schools), searches under `searches`. */
export function networkReceipts(received: ReceivedStore, kinds: NetworkKinds, name: string, limit: number) {
  const submits = received.list(kinds.submits, name, limit);
  const searches = received.list(kinds.searches, name, limit);
  return {
    leads: submits.items,
    count: submits.items.length,
    total_received: submits.summary.total_received,
    searches: searches.items,
    search_count: searches.items.length,
    search_total_received: searches.summary.total_received,
  };
}

/** Forgets a partner network's receipts and its submits' Idempotency-Keys (`DELETE …/received`). */
export function forgetNetwork(received: ReceivedStore, keys: IdempotencyStore, kinds: NetworkKinds, name: string) {
  keys.forget(`${kinds.submits}/${name}`);
  return { cleared: received.clear(kinds.submits, name), searches_cleared: received.clear(kinds.searches, name) };
}
