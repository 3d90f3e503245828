import { CapSlot, LiveSale, SaleFacts, slotKey } from '@lr/domain';
import { lastSalesOf } from './dedupe-keys';

/**
 * The sale ledger's reads that other statements embed (a search's partner
 * answer reads them with the search; the reservation under its locks): the
 * statement fragments are written here once.
 */

/** The live (reserved or accepted) sales of lead group `group` (an SQL expression). */
export const LIVE_SALES = (group: string) =>
  `SELECT offer_id, school_id, offer_type FROM sales WHERE lead_group_id = ${group} AND status <> 'released' ORDER BY created_at`;

/** The `cap_usage` rows of the slots given as three parallel array parameters. */
export const CAP_USAGE = (scopes: string, periods: string, starts: string) =>
  `SELECT u.scope, u.period, u.period_start, u.used
     FROM cap_usage u
     JOIN unnest(${scopes}::text[], ${periods}::text[], ${starts}::timestamptz[]) AS s(scope, period, period_start)
       ON u.scope = s.scope AND u.period = s.period AND u.period_start = s.period_start`;

export const slotParams = (slots: readonly CapSlot[]): [string[], string[], string[]] => [
  slots.map((s) => s.scope),
  slots.map((s) => s.period),
  slots.map((s) => s.periodStart.toISOString()),
];

/** The sale facts' JSON documents, as a statement that reads them builds them (json_agg of LIVE_SALES, CAP_USAGE, LAST_SALES_TO_PERSON). */
export interface SaleFactsDocuments {
  live_sales: Array<{ offer_id: string; school_id: string; offer_type: LiveSale['offerType'] }> | null;
  cap_usage: Array<{ scope: string; period: CapSlot['period']; period_start: string; used: number }> | null;
  last_sales: Array<{ offer_id: string; last_sold_at: string }> | null;
}

/** The sale facts as read: the documents, and whether the person is suppressed (an EXISTS). */
export type SaleFactsColumns = SaleFactsDocuments & { suppressed: boolean | null };

export function factsOf(r: SaleFactsColumns): SaleFacts {
  return {
    liveSales: liveSalesOf(r.live_sales),
    capUsage: capUsageOf(r.cap_usage),
    lastSales: lastSalesOf(r.last_sales),
    suppressed: r.suppressed === true,
  };
}

export function liveSalesOf(rows: SaleFactsDocuments['live_sales']): LiveSale[] {
  return (rows ?? []).map((s) => ({ offerId: s.offer_id, schoolId: s.school_id, offerType: s.offer_type }));
}

export function capUsageOf(rows: SaleFactsDocuments['cap_usage']): Map<string, number> {
  return new Map((rows ?? []).map((u) => [slotKey({ scope: u.scope, period: u.period, periodStart: new Date(u.period_start) }), u.used]));
}
