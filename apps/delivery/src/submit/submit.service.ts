import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  MESSAGE_TYPES,
  SubmitAnswerV1,
  SubmitCheckRefusal,
  SubmitChecksAnswerV1,
  SubmitChecksRequestedV1,
  SubmitRequestedV1,
} from '@lr/contracts';
import { programPayout, sameLead, toCents } from '@lr/domain';
import { AmqpConnection } from '@lr/messaging';
import { counter } from '@lr/observability';
import { findLead, leadDecision, LeadDecisionRow, rowsOf } from '@lr/persistence';
import { SearchStatePublisher } from '@lr/platform';
import { BuyerDelivery } from './buyer-delivery';
import { buyerDecision } from './decisions';
import { SaleLedger } from './sale-ledger';
import { loadSubmitContext, SubmitContext } from './submit-context';

/** How long delivery waits for the checks' verdict. */
const CHECKS_TIMEOUT_MS = 5000;
/** Beyond an unfinished attempt's deadline, how long before it is taken as interrupted (its worker is gone). */
const INTERRUPTED_GRACE_MS = 2000;

/** How long a buyer's answer is kept trying to be booked before the message's own retries take over. */
const SETTLE_PERSIST_MS = 60_000;
const settleRetries = counter('delivery_settle_retries_total', "Retries of booking a buyer's answer after a failed attempt (PostgreSQL away or busy)");
const decisions = counter('delivery_submits_total', 'Submits decided, by code and test flag', ['code', 'test']);

const FORBIDDEN: SubmitAnswerV1 = {
  kind: 'refused',
  refusal: { httpStatus: 403, code: 'FORBIDDEN', reason: 'Lead already submitted; its data cannot change' },
};
/** The result, offer or earlier post the gateway found is gone (e.g. the offer left the campaign since). */
function gone(msg: SubmitRequestedV1): SubmitAnswerV1 {
  return msg.kind === 'result_submit'
    ? { kind: 'refused', refusal: { httpStatus: 404, code: 'NOT_FOUND', reason: 'Search result not found', error: 'search_result_not_found' } }
    : { kind: 'refused', refusal: { httpStatus: 404, code: 'NOT_FOUND', reason: 'Offer not found' } };
}

/**
 * Turns a submit (result submit or direct post) into one decision
 * (docs/submit.md). Every step is resumable, so a redelivered message (a
 * worker killed at any point) continues where the stored state says and never
 * has a second effect:
 *   stored lead?  no  -> refuse a change of a submitted lead (403, nothing saved), else store it pending
 *   decided?      yes -> answer the stored decision
 *   sale?         no  -> checks (refusal / test lead held) -> atomic reservation (refusal / 403)
 *   attempt?      no  -> record it, send to the buyer, then decide and book (or release) in one transaction
 *                 yes -> the buyer may have it: never sent again; decided as unanswered once its deadline passed
 */
@Injectable()
export class SubmitService {
  private readonly log = new Logger(SubmitService.name);

  constructor(
    private readonly ds: DataSource,
    private readonly amqp: AmqpConnection,
    private readonly ledger: SaleLedger,
    private readonly buyers: BuyerDelivery,
    private readonly searchState: SearchStatePublisher,
  ) {}

  async handle(msg: SubmitRequestedV1): Promise<SubmitAnswerV1> {
    let stored = await findLead(this.ds, msg.leadId);
    if (stored && stored.status !== 'pending') return this.answer(stored); // a redelivery of a decided submit
    const ctx = await loadSubmitContext(this.ds, msg);
    if (!ctx) {
      this.log.warn({ msg: 'submit names a result or offer that is gone', lead_id: msg.leadId });
      if (!stored) return gone(msg);
      // Stored, then its offer left the campaign: it can no longer be sold.
      await this.ds.transaction(async (em) => {
        if (await this.decideIn(em, msg.leadId, { status: 'rejected', code: 'OFFER_UNAVAILABLE', reason: 'Offer unavailable' }, 'service')) {
          await this.ledger.release(em, msg.leadId);
        }
      });
      return this.answer((await findLead(this.ds, msg.leadId))!);
    }
    if (!stored) {
      if (ctx.lockedLead && !sameLead(ctx.lockedLead, ctx.lead)) return FORBIDDEN;
      await this.storePending(ctx);
      stored = (await findLead(this.ds, msg.leadId))!;
    }
    if (stored.status !== 'pending') return this.answer(stored);

    const sale: Array<{ status: string; payout: string | null }> = await this.ds.query(`SELECT status, payout FROM sales WHERE lead_id = $1`, [msg.leadId]);
    let programId: string | null;
    let answers: Record<string, string>;
    let payout: number | null;
    if (sale.length === 0) {
      const checks = await this.check(ctx, stored);
      if (checks.refusal) return this.decide(ctx, checks.refusal);
      if (ctx.isTest) return this.decide(ctx, { status: 'held', code: 'TEST_LEAD_HELD', reason: 'Test lead held' });
      programId = checks.programId;
      answers = checks.answers;
      payout = this.payoutOf(ctx, programId);
      await this.ds.query(`UPDATE leads SET program_id = $2, answers = $3 WHERE id = $1`, [msg.leadId, programId, JSON.stringify(answers)]);
      const reservation = await this.ledger.reserve(ctx, payout);
      if (reservation.kind === 'forbidden') {
        await this.forget(msg.leadId);
        return FORBIDDEN;
      }
      if (reservation.kind === 'refused') return this.decide(ctx, reservation.refusal);
    } else {
      programId = stored.programId;
      answers = stored.answers;
      payout = sale[0].payout === null ? null : Number(sale[0].payout);
    }
    return this.deliver(ctx, programId, answers, payout);
  }

  private async deliver(ctx: SubmitContext, programId: string | null, answers: Record<string, string>, payout: number | null): Promise<SubmitAnswerV1> {
    const leadId = ctx.msg.leadId;
    const claim = await this.buyers.claim(ctx);
    if (!claim.claimed) {
      // An earlier handler started this delivery: it may still be running (a broker hiccup redelivered
      // the message) or be dead. Wait out its deadline; if it has not decided by then, it never will.
      const waitMs = claim.startedAt.getTime() + claim.deadlineMs + INTERRUPTED_GRACE_MS - Date.now();
      if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
      const now = (await findLead(this.ds, leadId))!;
      if (now.status !== 'pending') return this.answer(now);
      this.log.warn({ msg: 'delivery attempt interrupted; not sent again', lead_id: leadId });
      return this.settle(ctx, { outcome: 'interrupted', httpStatus: null, latencyMs: 0, detail: 'worker stopped during the call' }, payout);
    }
    const consentedAt = ctx.msg.requestedAt;
    const answer = await this.buyers.send(ctx, programId, answers, consentedAt);
    return this.settleDurably(ctx, answer, payout);
  }

  /**
   * The buyer's answer exists only in this process until it is booked: if
   * booking fails (PostgreSQL away for a moment, the pool exhausted) and the
   * message were simply retried, the redelivery would find the attempt started
   * and unfinished and decide it interrupted, so a lead the school accepted
   * would be recorded as not sold. So the booking is retried here, with
   * back-off, for up to SETTLE_PERSIST_MS; only then does the error go to the
   * message's retries. The message stays unacked meanwhile.
   */
  private async settleDurably(ctx: SubmitContext, answer: Parameters<BuyerDelivery['finishAttempt']>[2], payout: number | null): Promise<SubmitAnswerV1> {
    const giveUpAt = Date.now() + SETTLE_PERSIST_MS;
    for (let delayMs = 250; ; delayMs = Math.min(delayMs * 2, 5_000)) {
      try {
        return await this.settle(ctx, answer, payout);
      } catch (e) {
        if (Date.now() + delayMs > giveUpAt) throw e;
        settleRetries.inc();
        this.log.warn({ msg: "booking the buyer's answer failed; retrying", lead_id: ctx.msg.leadId, outcome: answer.outcome, err: (e as Error).message });
        await new Promise((r) => setTimeout(r, delayMs));
      }
    }
  }

  /** Books the buyer's answer: accepted (sale, payout, the search's counters) or released, with the attempt, in one transaction. */
  private async settle(ctx: SubmitContext, answer: Parameters<BuyerDelivery['finishAttempt']>[2], payout: number | null): Promise<SubmitAnswerV1> {
    const leadId = ctx.msg.leadId;
    await this.ds.transaction(async (em) => {
      await this.buyers.finishAttempt(em, leadId, answer);
      if (answer.outcome === 'accepted') {
        if (await this.ledger.accept(em, leadId, payout)) decisions.inc({ code: 'ACCEPTED', test: 'false' });
      } else {
        const d = buyerDecision(answer.outcome);
        if (await this.decideIn(em, leadId, { status: d.status, code: d.code, reason: d.reason }, 'buyer')) {
          await this.ledger.release(em, leadId);
        }
      }
    });
    const stored = (await findLead(this.ds, leadId))!;
    return this.answer(stored);
  }

  private async check(ctx: SubmitContext, stored: LeadDecisionRow): Promise<SubmitChecksAnswerV1> {
    const entry = ctx.result?.entry;
    const request: SubmitChecksRequestedV1 = {
      leadId: ctx.msg.leadId,
      campaignId: ctx.msg.campaignId,
      offerId: ctx.offer.id,
      isTest: ctx.isTest,
      lead: ctx.lead,
      programId: ctx.msg.programId,
      answers: ctx.msg.answers,
      tcpaConsent: ctx.msg.tcpaConsent,
      expiresAt: ctx.result?.expiresAt ? new Date(ctx.result.expiresAt).toISOString() : null,
      shown: entry ? { programs: entry.programs.map((p) => ({ value: p.value, label: p.label })), formFields: entry.form_fields } : null,
      leadGroupId: stored.leadGroupId,
    };
    return this.amqp.request<SubmitChecksRequestedV1, SubmitChecksAnswerV1>(MESSAGE_TYPES.SubmitChecksRequested, request, {
      timeoutMs: CHECKS_TIMEOUT_MS,
    });
  }

  /** The caller's payout for the chosen program (or the offer's), in cents; null when none is configured. */
  private payoutOf(ctx: SubmitContext, programId: string | null): number | null {
    const cfg = { payout: ctx.offer.payout, programPayouts: ctx.offer.programPayouts };
    if (programId !== null) return programPayout(cfg, programId) ?? null;
    return cfg.payout === null ? null : toCents(cfg.payout);
  }

  /** Every submit is its own lead, stored pending first, with its consent evidence (consent is the submit's, never the search's). */
  private async storePending(ctx: SubmitContext): Promise<void> {
    const m = ctx.msg;
    await this.ds.transaction(async (em) => {
      const inserted = rowsOf<{ id: string }>(
        await em.query(
          `INSERT INTO leads (id, search_id, result_id, kind, affiliate_id, campaign_id, offer_id, api_key_id, program_id, answers, lead, tracking,
                              consumer_ip, ip_source, is_test, status, code, reason, created_at, lead_group_id, origin_lead_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, '{}', $10, $11, $12, $13, $14, 'pending', 'PENDING', 'Lead pending', $15, $16, $17)
           ON CONFLICT (id) DO NOTHING RETURNING id`,
          [
            m.leadId, m.searchId, m.resultId, m.kind, m.affiliateId, m.campaignId, ctx.offer.id, m.apiKeyId, m.programId,
            JSON.stringify(ctx.lead), JSON.stringify(ctx.tracking), ctx.consumerIp, ctx.ipSource, ctx.isTest, m.requestedAt,
            ctx.leadGroupId, m.originLeadId,
          ],
        ),
      );
      if (inserted.length === 0 || m.tcpaConsent === null) return;
      await em.query(
        `INSERT INTO consent_evidence (lead_id, tcpa_consent, tcpa_text, button_label, ip, consented_at, form_cert_url, universal_lead_cert)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [m.leadId, m.tcpaConsent, this.buyers.tcpaText(ctx), m.consentButtonLabel, ctx.consumerIp, m.requestedAt, ctx.formCertUrl, ctx.universalLeadCert],
      );
    });
  }

  /** A 403 refusal saves nothing: the pending lead stored for it goes again. */
  private async forget(leadId: string): Promise<void> {
    await this.ds.transaction(async (em) => {
      await em.query(`DELETE FROM consent_evidence WHERE lead_id = $1`, [leadId]);
      await em.query(`DELETE FROM leads WHERE id = $1 AND status = 'pending'`, [leadId]);
    });
  }

  private async decide(ctx: SubmitContext, refusal: { status: string; code: SubmitCheckRefusal['code']; reason: string; field?: string }): Promise<SubmitAnswerV1> {
    await this.decideIn(this.ds.manager, ctx.msg.leadId, refusal, 'service');
    return this.answer((await findLead(this.ds, ctx.msg.leadId))!);
  }

  /** Decides a pending lead (refused or held; payout 0). False when it was already decided. */
  private async decideIn(
    em: EntityManager,
    leadId: string,
    d: { status: string; code: string; reason: string; field?: string },
    by: 'service' | 'buyer',
  ): Promise<boolean> {
    const rows = rowsOf<{ is_test: boolean }>(
      await em.query(
        `UPDATE leads SET status = $2, code = $3, reason = $4, field = $5, payout = 0, decided_at = now(), decided_by = $6
          WHERE id = $1 AND status = 'pending' RETURNING is_test`,
        [leadId, d.status, d.code, d.reason, d.field ?? null, by],
      ),
    );
    if (rows.length > 0) decisions.inc({ code: d.code, test: String(rows[0].is_test) });
    return rows.length > 0;
  }

  /** The stored decision as the reply; an accepted result submit also refreshes the search's hot state (its counters). */
  private async answer(stored: LeadDecisionRow): Promise<SubmitAnswerV1> {
    if (stored.status === 'accepted' && stored.searchId) await this.searchState.resync(stored.searchId);
    return { kind: 'decision', decision: leadDecision(stored) };
  }
}
