import type { Logger } from '@nestjs/common';
import type { PartnerRef } from '@lr/contracts';
import { partnerMetrics } from '../../partner-metrics';
import type { DroppedResult } from './read-offer-list';

/** How many dropped entries one log line names (the counts cover all). */
const LOGGED_DROPS = 5;

/**
 * Counts the entries left out of a partner's answer
 * (`partner_results_dropped_total{partner, reason}`) and logs one warn line
 * with up to 5 examples: their index, reason, external id, the path of the
 * problem and, for markup, which display string held it
 * (`partner_text_refused_total{partner, field}` counts those). Never a value
 * of the answer: it may hold the lead, or the markup itself.
 */
export function reportDropped(log: Logger, partner: PartnerRef, searchId: string, dropped: DroppedResult[]): void {
  if (dropped.length === 0) return;
  const byReason: Record<string, number> = {};
  for (const d of dropped) {
    byReason[d.reason] = (byReason[d.reason] ?? 0) + 1;
    partnerMetrics.resultsDropped.inc({ partner: partner.name, reason: d.reason });
    if (d.field) partnerMetrics.textRefused.inc({ partner: partner.name, field: d.field });
  }
  log.warn({
    msg: 'partner answer: result entries dropped',
    partner: partner.name,
    partner_id: partner.id,
    search_id: searchId,
    dropped: byReason,
    examples: dropped.slice(0, LOGGED_DROPS).map((d) => ({
      index: d.index,
      reason: d.reason,
      external_id: d.externalId,
      problem: d.problem,
      ...(d.field ? { field: d.field } : {}),
    })),
  });
}
