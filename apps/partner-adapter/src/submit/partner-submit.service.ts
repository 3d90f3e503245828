import { Injectable, Logger } from '@nestjs/common';
import { PartnerSubmitAnswerV1, PartnerSubmitRequestedV1 } from '@lr/contracts';
import { describeCallFailure } from '../calls/call-failure';
import { PartnerCalls } from '../calls/partner-calls';
import { partnerMetrics } from '../partner-metrics';

/**
 * Posts a chosen partner result to its partner network (request/reply from
 * delivery). The lead id is the partner's Idempotency-Key, so a redelivered
 * request cannot become a second lead at a partner that honours it; delivery
 * itself never asks twice for one lead (it records the attempt first).
 * Failures are answers (`timeout`, `error`), not exceptions: delivery decides.
 */
@Injectable()
export class PartnerSubmitService {
  private readonly log = new Logger(PartnerSubmitService.name);

  constructor(private readonly calls: PartnerCalls) {}

  async submit(req: PartnerSubmitRequestedV1): Promise<PartnerSubmitAnswerV1> {
    const started = Date.now();
    const answer = await this.send(req);
    const labels = { partner: req.partner.name, outcome: answer.outcome };
    partnerMetrics.submitDuration.observe(labels, (Date.now() - started) / 1000);
    partnerMetrics.calls.inc({ ...labels, operation: 'submit' });
    return answer;
  }

  private async send(req: PartnerSubmitRequestedV1): Promise<PartnerSubmitAnswerV1> {
    const remainingMs = Date.parse(req.notAfter) - Date.now();
    if (!(remainingMs > 0)) {
      this.log.warn({ msg: 'partner submit expired before it was sent; not sent', lead_id: req.leadId, partner: req.partner.name });
      return { leadId: req.leadId, outcome: 'error', detail: 'expired before it was sent' };
    }
    try {
      const outcome = await this.calls.run(req.partner, Math.min(req.partner.timeoutMs, remainingMs), (adapter, signal) =>
        adapter.submit(
          req.partner,
          {
            searchId: req.searchId,
            partnerResultId: req.partnerResultId,
            lead: req.lead,
            programId: req.programId,
            answers: req.answers,
            idempotencyKey: req.leadId,
          },
          signal,
        ),
      );
      switch (outcome.kind) {
        case 'accepted':
          return { leadId: req.leadId, outcome: 'accepted', partnerLeadId: outcome.partnerLeadId };
        case 'duplicate':
          return { leadId: req.leadId, outcome: 'duplicate' };
        case 'rejected':
          return { leadId: req.leadId, outcome: 'rejected', detail: outcome.partnerReason?.slice(0, 500) ?? null };
      }
    } catch (e) {
      const failure = describeCallFailure(e);
      if (failure.unexpected) this.log.error({ msg: 'partner submit failed unexpectedly', lead_id: req.leadId, partner: req.partner.name, err: e });
      return { leadId: req.leadId, outcome: failure.outcome === 'timeout' ? 'timeout' : 'error', detail: failure.detail };
    }
  }
}
