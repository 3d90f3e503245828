import { Injectable, Logger } from '@nestjs/common';
import { DeliveryRequestedV1, MESSAGE_TYPES, PartnerSubmitAnswerV1, PartnerSubmitRequestedV1 } from '@lr/contracts';
import { contactValuesOf, maskContactText, type BuyerOutcome, type DeliverySettings, type StoredContact } from '@lr/domain';
import { AmqpConnection, RequestTimeoutError } from '@lr/messaging';
import { counter, histogram } from '@lr/observability';
import { ContactSealer, UnreadableError } from '@lr/persistence';
import { DEFAULT_SCHOOL_TIMEOUT_MS, SchoolAdapters, deliverWithDeadline } from '../schools/school-adapters';
import { SchoolHttpError, SchoolProtocolError, SchoolTimeoutError } from '../schools/school-errors';

/** Time a partner submit's reply may take beyond the partner's own timeout (the broker and partner-adapter). */
const PARTNER_REPLY_MARGIN_MS = 2000;

/** `buyer` is the school's name (kind school) or the partner network's (kind partner), as in the catalog. */
const buyerSeconds = histogram(
  'delivery_buyer_seconds',
  'Time a buyer (school or partner) system took to answer a lead, by kind, buyer and outcome',
  ['kind', 'buyer', 'outcome'],
  [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
);
const buyerOutcomes = counter('delivery_buyer_outcomes_total', 'Leads sent to buyer systems, by kind, buyer and outcome', [
  'kind',
  'buyer',
  'outcome',
]);

export interface BuyerAnswer {
  outcome: BuyerOutcome;
  httpStatus: number | null;
  latencyMs: number;
  /** For operators only (delivery_attempts.detail): the buyer's own reason or the failure. Never answered to affiliates. */
  detail: string | null;
}

/** The buyer's deadline: how long a call may take before the lead counts as unanswered. */
export function buyerDeadlineMs(buyer: DeliveryRequestedV1['buyer']): number {
  if (buyer.kind === 'partner') return buyer.partner.timeoutMs + PARTNER_REPLY_MARGIN_MS;
  return (buyer.delivery as Partial<DeliverySettings>).timeout_ms ?? DEFAULT_SCHOOL_TIMEOUT_MS;
}

/**
 * Calls a lead's buyer once: an own offer's school system (the catalog's
 * delivery adapter, Idempotency-Key = the lead id), or a partner network
 * through partner-adapter (the adapter to partner interfaces). Never throws
 * for the buyer's failure: a timeout, an HTTP error or an unreadable answer
 * is an outcome (docs/submit.md, Buyer answers).
 */
@Injectable()
export class BuyerCalls {
  private readonly log = new Logger(BuyerCalls.name);
  private readonly schools = new SchoolAdapters();

  constructor(
    private readonly amqp: AmqpConnection,
    private readonly sealer: ContactSealer,
  ) {}

  /**
   * A school's lead opened for its call (docs/security.md, Encryption at
   * rest): the readable part with its sealed part, null when its data key was
   * destroyed (a deletion). Called before the attempt is claimed, so a key
   * store that cannot be reached fails the message (retried) before anything
   * is recorded, never an attempt that would look interrupted. A partner's
   * lead is opened by partner-adapter: undefined.
   */
  async open(msg: DeliveryRequestedV1): Promise<StoredContact | null | undefined> {
    if (msg.buyer.kind === 'partner') return undefined;
    try {
      return await this.sealer.openRecord(
        { lead: msg.lead, tracking: msg.tracking, consumerIp: msg.consumerIp, ipSource: 'consumer' },
        msg.contact,
      );
    } catch (e) {
      if (e instanceof UnreadableError) return null;
      throw e;
    }
  }

  /** `opened`: what open() answered for this message. */
  async send(msg: DeliveryRequestedV1, opened: StoredContact | null | undefined): Promise<BuyerAnswer> {
    const started = Date.now();
    const answer = msg.buyer.kind === 'partner' ? await this.toPartner(msg, msg.buyer) : await this.toSchool(msg, msg.buyer, opened);
    answer.latencyMs = Date.now() - started;
    const labels = {
      kind: msg.buyer.kind,
      buyer: msg.buyer.kind === 'partner' ? msg.buyer.partner.name : msg.buyer.schoolName,
      outcome: answer.outcome,
    };
    buyerSeconds.observe(labels, answer.latencyMs / 1000);
    buyerOutcomes.inc(labels);
    return answer;
  }

  private async toSchool(
    msg: DeliveryRequestedV1,
    buyer: Extract<DeliveryRequestedV1['buyer'], { kind: 'school' }>,
    whole: StoredContact | null | undefined,
  ): Promise<BuyerAnswer> {
    const settings = buyer.delivery as unknown as DeliverySettings;
    if (!settings.adapter) return { outcome: 'error', httpStatus: null, latencyMs: 0, detail: 'offer has no delivery settings' };
    if (!whole) return erased();
    // The school's words are kept for operators (delivery_attempts.detail): never with the person's contact data in them.
    const answer = await this.callSchool(msg, buyer, settings, whole);
    return answer.detail ? { ...answer, detail: maskContactText(answer.detail, contactValuesOf([whole.lead])) } : answer;
  }

  private async callSchool(
    msg: DeliveryRequestedV1,
    buyer: Extract<DeliveryRequestedV1['buyer'], { kind: 'school' }>,
    settings: DeliverySettings,
    whole: StoredContact,
  ): Promise<BuyerAnswer> {
    try {
      const outcome = await deliverWithDeadline(
        this.schools,
        {
          leadId: msg.leadId,
          offer: { id: msg.offerId, name: buyer.offerName, schoolName: buyer.schoolName },
          settings,
          lead: whole.lead,
          tracking: whole.tracking,
          consumerIp: whole.consumerIp,
          programId: msg.programId,
          answers: msg.answers,
          consent: { ...msg.consent, ip: msg.consent.ip || whole.consumerIp },
          submittedAt: msg.submittedAt,
        },
        buyerDeadlineMs(buyer),
      );
      if (outcome.kind === 'accepted')
        return {
          outcome: 'accepted',
          httpStatus: 200,
          latencyMs: 0,
          detail: outcome.buyerLeadId ? `buyer lead id ${outcome.buyerLeadId}` : null,
        };
      return { outcome: outcome.kind, httpStatus: 200, latencyMs: 0, detail: outcome.buyerReason };
    } catch (e) {
      if (e instanceof SchoolTimeoutError) return { outcome: 'timeout', httpStatus: null, latencyMs: 0, detail: e.detail };
      if (e instanceof SchoolHttpError) return { outcome: 'error', httpStatus: e.status, latencyMs: 0, detail: e.detail };
      if (e instanceof SchoolProtocolError) return { outcome: 'error', httpStatus: null, latencyMs: 0, detail: e.detail };
      this.log.error({ msg: 'school delivery failed unexpectedly', lead_id: msg.leadId, err: e });
      return {
        outcome: 'error',
        httpStatus: null,
        latencyMs: 0,
        detail: `unexpected: ${(e as Error)?.message ?? String(e)}`.slice(0, 500),
      };
    }
  }

  private async toPartner(
    msg: DeliveryRequestedV1,
    buyer: Extract<DeliveryRequestedV1['buyer'], { kind: 'partner' }>,
  ): Promise<BuyerAnswer> {
    if (!buyer.partnerResultId || !msg.searchId)
      return { outcome: 'error', httpStatus: null, latencyMs: 0, detail: 'partner result without partner data' };
    const timeoutMs = buyerDeadlineMs(buyer);
    const request: PartnerSubmitRequestedV1 = {
      leadId: msg.leadId,
      searchId: msg.searchId,
      partner: buyer.partner,
      partnerResultId: buyer.partnerResultId,
      lead: msg.lead,
      programId: msg.programId,
      answers: msg.answers,
      externalId: buyer.externalId,
      tracking: msg.tracking,
      consumerIp: msg.consumerIp,
      consent: msg.consent,
      submittedAt: msg.submittedAt,
      contact: msg.contact ?? null,
      notAfter: new Date(Date.now() + timeoutMs - PARTNER_REPLY_MARGIN_MS / 2).toISOString(),
    };
    try {
      const reply = await this.amqp.request<PartnerSubmitRequestedV1, PartnerSubmitAnswerV1>(
        MESSAGE_TYPES.PartnerSubmitRequested,
        request,
        {
          messageId: `partner-submit:${msg.leadId}`,
          timeoutMs,
        },
      );
      switch (reply.outcome) {
        case 'accepted':
          return {
            outcome: 'accepted',
            httpStatus: null,
            latencyMs: 0,
            detail: reply.partnerLeadId ? `partner lead id ${reply.partnerLeadId}` : null,
          };
        case 'duplicate':
          return { outcome: 'duplicate', httpStatus: null, latencyMs: 0, detail: reply.detail ?? null };
        case 'rejected':
          return { outcome: 'rejected', httpStatus: null, latencyMs: 0, detail: reply.detail };
        default:
          return { outcome: reply.outcome, httpStatus: null, latencyMs: 0, detail: reply.detail };
      }
    } catch (e) {
      if (e instanceof RequestTimeoutError)
        return { outcome: 'timeout', httpStatus: null, latencyMs: 0, detail: 'no reply from partner-adapter' };
      // The broker is down (the request may have been published, or not): the message is retried, finds
      // this attempt unfinished, never asks again, and decides it unanswered once its deadline passed.
      throw e;
    }
  }
}

/**
 * A lead whose contact data can no longer be read (its data key was destroyed
 * by a person's deletion before its buyer was called, e.g. a message replayed
 * from a dead-letter queue): not sent; decided as a failed call, so its sale
 * is released.
 */
function erased(): BuyerAnswer {
  return { outcome: 'error', httpStatus: null, latencyMs: 0, detail: 'contact data erased (a deletion): not sent' };
}
