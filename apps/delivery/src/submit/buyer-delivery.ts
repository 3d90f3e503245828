import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { MESSAGE_TYPES, PartnerSubmitAnswerV1, PartnerSubmitRequestedV1 } from '@lr/contracts';
import { AmqpConnection, RequestTimeoutError } from '@lr/messaging';
import { counter, histogram } from '@lr/observability';
import { rowsOf } from '@lr/persistence';
import { SchoolAdapters, deliverWithDeadline } from '../schools/school-adapters';
import { SchoolHttpError, SchoolProtocolError, SchoolTimeoutError } from '../schools/school-errors';
import type { BuyerOutcome } from './decisions';
import type { SubmitContext } from './submit-context';

const DEFAULT_SCHOOL_TIMEOUT_MS = 8000;
/** Time a partner submit's reply may take beyond the partner's own timeout (the broker and partner-adapter). */
const PARTNER_REPLY_MARGIN_MS = 2000;

/** `buyer` is the school's name (kind school) or the partner network's (kind partner), as in the catalog. */
const buyerSeconds = histogram(
  'delivery_buyer_seconds',
  'Time a buyer (school or partner) system took to answer a lead, by kind, buyer and outcome',
  ['kind', 'buyer', 'outcome'],
  [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
);
const buyerOutcomes = counter('delivery_buyer_outcomes_total', 'Leads sent to buyer systems, by kind, buyer and outcome', ['kind', 'buyer', 'outcome']);

export interface BuyerAnswer {
  outcome: BuyerOutcome;
  httpStatus: number | null;
  latencyMs: number;
  /** For operators only (delivery_attempts.detail): the buyer's own reason or the failure. Never answered to affiliates. */
  detail: string | null;
}

/** What the delivery attempt row says about an earlier try. */
export type AttemptClaim = { claimed: true } | { claimed: false; startedAt: Date; deadlineMs: number };

/**
 * Sends one lead to its buyer, at most once. The attempt is recorded (and
 * committed) before the buyer is called: a worker that dies mid-call leaves
 * an unfinished attempt, and whoever handles the redelivered submit does not
 * call the buyer again but decides it as unanswered (docs/submit.md).
 */
@Injectable()
export class BuyerDelivery {
  private readonly log = new Logger(BuyerDelivery.name);
  private readonly schools = new SchoolAdapters();

  constructor(
    private readonly ds: DataSource,
    private readonly amqp: AmqpConnection,
  ) {}

  /** The buyer's deadline for this offer: how long a call may take before it counts as unanswered. */
  deadlineMs(ctx: SubmitContext): number {
    if (ctx.offer.source === 'partner') return (ctx.offer.partner?.timeoutMs ?? DEFAULT_SCHOOL_TIMEOUT_MS) + PARTNER_REPLY_MARGIN_MS;
    return ctx.offer.delivery?.timeout_ms ?? DEFAULT_SCHOOL_TIMEOUT_MS;
  }

  async claim(ctx: SubmitContext): Promise<AttemptClaim> {
    const inserted = rowsOf<{ attempt: number }>(
      await this.ds.query(
        `INSERT INTO delivery_attempts (lead_id, attempt, started_at) VALUES ($1, 1, now()) ON CONFLICT DO NOTHING RETURNING attempt`,
        [ctx.msg.leadId],
      ),
    );
    if (inserted.length > 0) return { claimed: true };
    const rows: Array<{ started_at: Date }> = await this.ds.query(`SELECT started_at FROM delivery_attempts WHERE lead_id = $1 AND attempt = 1`, [
      ctx.msg.leadId,
    ]);
    return { claimed: false, startedAt: rows[0].started_at, deadlineMs: this.deadlineMs(ctx) };
  }

  /** Records how the attempt ended (in the caller's transaction, with the decision). */
  async finishAttempt(em: EntityManager, leadId: string, answer: BuyerAnswer): Promise<void> {
    await em.query(
      `UPDATE delivery_attempts SET finished_at = now(), outcome = $2, http_status = $3, latency_ms = $4, detail = $5
        WHERE lead_id = $1 AND attempt = 1 AND finished_at IS NULL`,
      [leadId, answer.outcome, answer.httpStatus, answer.latencyMs, answer.detail],
    );
  }

  async send(ctx: SubmitContext, programId: string | null, answers: Record<string, string>, consentedAt: string): Promise<BuyerAnswer> {
    const kind = ctx.offer.source === 'partner' ? 'partner' : 'school';
    const started = Date.now();
    const answer = kind === 'partner' ? await this.toPartner(ctx, programId, answers) : await this.toSchool(ctx, programId, answers, consentedAt);
    answer.latencyMs = Date.now() - started;
    const labels = { kind, buyer: (kind === 'partner' ? ctx.offer.partner?.name : ctx.offer.schoolName) ?? 'unknown', outcome: answer.outcome };
    buyerSeconds.observe(labels, answer.latencyMs / 1000);
    buyerOutcomes.inc(labels);
    return answer;
  }

  private async toSchool(ctx: SubmitContext, programId: string | null, answers: Record<string, string>, consentedAt: string): Promise<BuyerAnswer> {
    const settings = ctx.offer.delivery;
    if (!settings) return { outcome: 'error', httpStatus: null, latencyMs: 0, detail: 'offer has no delivery settings' };
    try {
      const outcome = await deliverWithDeadline(
        this.schools,
        {
          leadId: ctx.msg.leadId,
          offer: { id: ctx.offer.id, name: ctx.offer.name, schoolName: ctx.offer.schoolName },
          settings,
          lead: ctx.lead,
          tracking: ctx.tracking,
          consumerIp: ctx.consumerIp,
          programId,
          answers,
          consent: {
            tcpaConsent: ctx.msg.tcpaConsent === true,
            tcpaText: this.tcpaText(ctx),
            buttonLabel: ctx.msg.consentButtonLabel,
            consentedAt,
            ip: ctx.consumerIp,
            formCertUrl: ctx.formCertUrl,
            universalLeadCert: ctx.universalLeadCert,
          },
          submittedAt: ctx.msg.requestedAt,
        },
        this.deadlineMs(ctx),
      );
      if (outcome.kind === 'accepted') return { outcome: 'accepted', httpStatus: 200, latencyMs: 0, detail: outcome.buyerLeadId ? `buyer lead id ${outcome.buyerLeadId}` : null };
      return { outcome: outcome.kind, httpStatus: 200, latencyMs: 0, detail: outcome.buyerReason };
    } catch (e) {
      if (e instanceof SchoolTimeoutError) return { outcome: 'timeout', httpStatus: null, latencyMs: 0, detail: e.detail };
      if (e instanceof SchoolHttpError) return { outcome: 'error', httpStatus: e.status, latencyMs: 0, detail: e.detail };
      if (e instanceof SchoolProtocolError) return { outcome: 'error', httpStatus: null, latencyMs: 0, detail: e.detail };
      this.log.error({ msg: 'school delivery failed unexpectedly', lead_id: ctx.msg.leadId, err: e });
      return { outcome: 'error', httpStatus: null, latencyMs: 0, detail: `unexpected: ${(e as Error)?.message ?? String(e)}`.slice(0, 500) };
    }
  }

  private async toPartner(ctx: SubmitContext, programId: string | null, answers: Record<string, string>): Promise<BuyerAnswer> {
    const partner = ctx.offer.partner;
    const partnerResultId = ctx.result?.partnerResultId;
    if (!partner || !partnerResultId || !ctx.msg.searchId) return { outcome: 'error', httpStatus: null, latencyMs: 0, detail: 'partner result without partner data' };
    const timeoutMs = this.deadlineMs(ctx);
    const request: PartnerSubmitRequestedV1 = {
      leadId: ctx.msg.leadId,
      searchId: ctx.msg.searchId,
      partner,
      partnerResultId,
      lead: ctx.lead,
      programId,
      answers,
      notAfter: new Date(Date.now() + timeoutMs - PARTNER_REPLY_MARGIN_MS / 2).toISOString(),
    };
    try {
      const reply = await this.amqp.request<PartnerSubmitRequestedV1, PartnerSubmitAnswerV1>(MESSAGE_TYPES.PartnerSubmitRequested, request, {
        messageId: `partner-submit:${ctx.msg.leadId}`,
        timeoutMs,
      });
      switch (reply.outcome) {
        case 'accepted':
          return { outcome: 'accepted', httpStatus: null, latencyMs: 0, detail: reply.partnerLeadId ? `partner lead id ${reply.partnerLeadId}` : null };
        case 'duplicate':
          return { outcome: 'duplicate', httpStatus: null, latencyMs: 0, detail: null };
        case 'rejected':
          return { outcome: 'rejected', httpStatus: null, latencyMs: 0, detail: reply.detail };
        default:
          return { outcome: reply.outcome, httpStatus: null, latencyMs: 0, detail: reply.detail };
      }
    } catch (e) {
      if (e instanceof RequestTimeoutError) return { outcome: 'timeout', httpStatus: null, latencyMs: 0, detail: 'no reply from partner-adapter' };
      // The broker is down (the request may have been published, or not): the submit is retried, finds
      // this attempt unfinished, never asks again, and decides it unanswered once its deadline passed.
      throw e;
    }
  }

  /** The consent statement shown with the result (the result's own), or the offer's on a direct post. */
  tcpaText(ctx: SubmitContext): string | null {
    return ctx.result ? ctx.result.entry.offer.tcpa_text : ctx.offer.tcpaText;
  }
}
