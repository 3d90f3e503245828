import { Logger } from '@nestjs/common';
import type { PartnerOfferResult, PartnerRef } from '@lr/contracts';
import { postJson } from '../http/post-json';
import type { PartnerAdapter, PartnerSearchCall, PartnerSubmitCall, PartnerSubmitOutcome } from '../partner-adapter';
import { partnerMetrics } from '../../partner-metrics';
import { DroppedResult, parseSearchAnswer } from './search-answer';
import { parseSubmitAnswer } from './submit-answer';

/** How many dropped entries one log line names (the counts cover all). */
const LOGGED_DROPS = 5;

/**
 * The sandbox partner protocol (docs/sandbox.md, "Partner protocol"): POST
 * `<base_url path>/search` and `/submit` with the base_url's query string.
 * Real partner networks that speak the same protocol can use it too.
 */
export class SandboxPartnerAdapter implements PartnerAdapter {
  private readonly log = new Logger(SandboxPartnerAdapter.name);

  async search(partner: PartnerRef, req: PartnerSearchCall, signal: AbortSignal): Promise<PartnerOfferResult[]> {
    const externalIds = [...new Set(req.offers.map((o) => o.externalId))];
    const body = await postJson(
      endpoint(partner.baseUrl, 'search'),
      {
        search_id: req.searchId,
        offers: externalIds.map((external_id) => ({ external_id })),
        lead: req.lead,
        tracking: req.tracking,
        is_test: req.isTest,
      },
      { signal },
    );
    const answer = parseSearchAnswer(body, req.searchId, req.offers);
    if (answer.dropped.length > 0) this.reportDropped(partner, req.searchId, answer.dropped);
    return answer.results;
  }

  async submit(partner: PartnerRef, req: PartnerSubmitCall, signal: AbortSignal): Promise<PartnerSubmitOutcome> {
    const body = await postJson(
      endpoint(partner.baseUrl, 'submit'),
      {
        partner_result_id: req.partnerResultId,
        search_id: req.searchId,
        lead: req.lead,
        program_id: req.programId,
        answers: req.answers,
      },
      { signal, headers: { 'idempotency-key': req.idempotencyKey } },
    );
    return parseSubmitAnswer(body);
  }

  private reportDropped(partner: PartnerRef, searchId: string, dropped: DroppedResult[]): void {
    const byReason: Record<string, number> = {};
    for (const d of dropped) {
      byReason[d.reason] = (byReason[d.reason] ?? 0) + 1;
      partnerMetrics.resultsDropped.inc({ partner: partner.name, reason: d.reason });
    }
    this.log.warn({
      msg: 'partner answer: result entries dropped',
      partner: partner.name,
      partner_id: partner.id,
      search_id: searchId,
      dropped: byReason,
      examples: dropped.slice(0, LOGGED_DROPS).map((d) => ({ index: d.index, reason: d.reason, external_id: d.externalId, problem: d.problem })),
    });
  }
}

/** `http://host/partners/alpha?delay_ms=5` → `http://host/partners/alpha/search?delay_ms=5`. */
export function endpoint(baseUrl: string, operation: 'search' | 'submit'): URL {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${operation}`;
  return url;
}
