import { Injectable, Logger } from '@nestjs/common';
import { MessageMeta, PartnerSubmitAnswerV1, PartnerSubmitRequestedV1 } from '@lr/contracts';
import { contactValuesOf, maskContactText, type StoredContact } from '@lr/domain';
import { ContactSealer, ProcessedMessages, UnreadableError } from '@lr/persistence';
import { describeCallFailure } from '../calls/call-failure';
import { PartnerCalls } from '../calls/partner-calls';
import { partnerMetrics } from '../partner-metrics';

/**
 * Posts a chosen partner result to its partner network (request/reply from
 * delivery), at most once. Delivery never asks twice for one lead (it records
 * the attempt first); here the request's message id is claimed in PostgreSQL
 * before the call, so a copy the broker redelivers (a partner-adapter killed
 * or cut off during the call) is not sent again: it is answered `timeout`
 * when delivery's wait ends (`notAfter`), after any reply of a first copy
 * still running. The lead id is also the partner's Idempotency-Key.
 * Failures are answers (`timeout`, `error`), not exceptions: delivery decides.
 */
@Injectable()
export class SubmitToPartner {
  private readonly log = new Logger(SubmitToPartner.name);

  constructor(
    private readonly calls: PartnerCalls,
    private readonly processed: ProcessedMessages,
    private readonly sealer: ContactSealer,
  ) {}

  async submit(req: PartnerSubmitRequestedV1, meta: Pick<MessageMeta, 'messageId' | 'type'>): Promise<PartnerSubmitAnswerV1> {
    const started = Date.now();
    const answer = await this.send(req, meta);
    const labels = { partner: req.partner.name, outcome: answer.outcome };
    partnerMetrics.submitDuration.observe(labels, (Date.now() - started) / 1000);
    partnerMetrics.calls.inc({ ...labels, operation: 'submit' });
    return answer;
  }

  private async send(req: PartnerSubmitRequestedV1, meta: Pick<MessageMeta, 'messageId' | 'type'>): Promise<PartnerSubmitAnswerV1> {
    const remainingMs = Date.parse(req.notAfter) - Date.now();
    if (!(remainingMs > 0)) {
      this.log.warn({ msg: 'partner submit expired before it was sent; not sent', lead_id: req.leadId, partner: req.partner.name });
      return { leadId: req.leadId, outcome: 'error', detail: 'expired before it was sent' };
    }
    // The lead is opened for the call (docs/security.md, Encryption at rest), before the request is claimed: a key
    // store away fails the message here (retried), never a claimed request that would look interrupted.
    let whole: StoredContact;
    try {
      whole = await this.sealer.openRecord(
        { lead: req.lead, tracking: req.tracking, consumerIp: req.consumerIp, ipSource: 'consumer' },
        req.contact,
      );
    } catch (e) {
      if (!(e instanceof UnreadableError)) throw e;
      return { leadId: req.leadId, outcome: 'error', detail: 'contact data erased (a deletion): not sent' };
    }
    if (!(await this.processed.claimOnce('partner-adapter', meta))) {
      this.log.warn({
        msg: 'partner submit handled before (it may have reached the partner); not sent again',
        lead_id: req.leadId,
        partner: req.partner.name,
      });
      const waitMs = Date.parse(req.notAfter) - Date.now();
      if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
      return { leadId: req.leadId, outcome: 'interrupted', detail: 'handled before and may have reached the partner; not sent again' };
    }
    try {
      const outcome = await this.calls.run(req.partner, Math.min(req.partner.timeoutMs, remainingMs), (adapter, signal) =>
        adapter.submit(
          req.partner,
          {
            searchId: req.searchId,
            partnerResultId: req.partnerResultId,
            lead: whole.lead,
            programId: req.programId,
            answers: req.answers,
            idempotencyKey: req.leadId,
            externalId: req.externalId,
            tracking: whole.tracking,
            consumerIp: whole.consumerIp,
            consent: { ...req.consent, ip: req.consent.ip || whole.consumerIp },
            submittedAt: req.submittedAt,
          },
          signal,
        ),
      );
      switch (outcome.kind) {
        case 'accepted':
          return { leadId: req.leadId, outcome: 'accepted', partnerLeadId: outcome.partnerLeadId };
        // The partner's words are kept for operators: never with the person's contact data in them.
        case 'duplicate':
          return { leadId: req.leadId, outcome: 'duplicate', detail: maskedReason(outcome.partnerReason || null, whole) };
        case 'rejected':
          return { leadId: req.leadId, outcome: 'rejected', detail: maskedReason(outcome.partnerReason?.slice(0, 500) ?? null, whole) };
      }
    } catch (e) {
      const failure = describeCallFailure(e);
      if (failure.unexpected)
        this.log.error({ msg: 'partner submit failed unexpectedly', lead_id: req.leadId, partner: req.partner.name, err: e });
      return { leadId: req.leadId, outcome: failure.outcome === 'timeout' ? 'timeout' : 'error', detail: failure.detail };
    }
  }
}

/** A partner's reason with the person's contact values masked (libs/domain maskContactText). */
function maskedReason(reason: string | null, whole: StoredContact): string | null {
  return reason === null ? null : maskContactText(reason, contactValuesOf([whole.lead]));
}
