import { Logger } from '@nestjs/common';
import type { PartnerOfferResult, PartnerRef } from '@lr/contracts';
import type { Environment } from '@lr/domain';
import { postJson } from '../http/post-json';
import { endpoint, partnerHeaders } from '../http/partner-request';
import { reportDropped } from '../offer-list/dropped-results';
import type { PartnerAdapter, PartnerSearchCall, PartnerSubmitCall, PartnerSubmitOutcome } from '../partner-adapter';
import { parseSearchAnswer } from './search-answer';
import { parseSubmitAnswer } from './submit-answer';

export { endpoint } from '../http/partner-request';

/**
 * The sandbox partner protocol (docs/sandbox.md, "Partner protocol"): POST
 * `<base_url path>/search` and `/submit` with the base_url's query string,
 * and the catalog's `headers` when it gives any. Real partner networks that
 * speak the same protocol can use it too.
 */
export class SandboxPartnerAdapter implements PartnerAdapter {
  private readonly log = new Logger(SandboxPartnerAdapter.name);

  constructor(private readonly env: Environment = process.env) {}

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
      { signal, headers: partnerHeaders(partner, this.env) },
    );
    const answer = parseSearchAnswer(body, req.searchId, req.offers);
    reportDropped(this.log, partner, req.searchId, answer.dropped);
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
      { signal, headers: partnerHeaders(partner, this.env, { 'idempotency-key': req.idempotencyKey }) },
    );
    return parseSubmitAnswer(body);
  }
}
