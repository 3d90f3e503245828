import { Injectable, Logger } from '@nestjs/common';
import type { DeliveryRequestedV1, SubmitAnswerV1 } from '@lr/contracts';
import { buyerDecision, centsOrNull, endsOtherSales, schoolHonoursIdempotencyKey, type StoredContact } from '@lr/domain';
import { counter } from '@lr/observability';
import { decisionOf, LeadRepository, SaleLedger, Settlement, StoredLead } from '@lr/persistence';
import { SearchStatePublisher } from '@lr/search-state';
import { BuyerAnswer, BuyerCalls, buyerDeadlineMs } from './buyer-calls';

/** Beyond an unfinished attempt's deadline, how long before it is taken as interrupted (its worker is gone). */
const INTERRUPTED_GRACE_MS = 2000;
/** How long a buyer's answer is kept trying to be booked before the message's own retries take over. */
const SETTLE_PERSIST_MS = 60_000;

const settleRetries = counter(
  'delivery_settle_retries_total',
  "Retries of booking a buyer's answer after a failed attempt (PostgreSQL away or busy)",
);
const decisions = counter('delivery_submits_total', 'Submits decided by their buyer (or found unanswered), by code and test flag', [
  'code',
  'test',
]);
const resent = counter(
  'delivery_buyer_resends_total',
  'Leads sent again, with the same Idempotency-Key, to a buyer that honours it after the call was cut by a crash',
);
const unresolved = counter(
  'delivery_unresolved_total',
  'Leads whose buyer call was cut by a crash and cannot be sent again (the buyer does not honour idempotency keys): decided unanswered, the buyer may hold the lead; listed by ops deliveries unresolved',
);

/**
 * Delivers a reserved lead to its buyer at most once and books the answer
 * (docs/submit.md, At most once):
 *   the attempt is claimed (committed) before the buyer is called; a
 *   redelivered request that finds it claimed answers the decision, or, once
 *   the attempt's deadline passed with no decision (its worker died during
 *   the call), calls a buyer that honours idempotency keys once more with the
 *   same key, whose real answer decides, and decides any other buyer's lead
 *   unanswered (`No response - Client`), recorded for reconciliation
 *   (`ops deliveries unresolved`);
 *   the buyer's answer is booked in one statement (libs/persistence
 *   SaleLedger.settle): accepted with its payout, or the sale released.
 * An acceptance of a result submit changes its search's counters: the new
 * state goes to Redis for polls.
 */
@Injectable()
export class DeliverLead {
  private readonly log = new Logger(DeliverLead.name);

  constructor(
    private readonly ledger: SaleLedger,
    private readonly leads: LeadRepository,
    private readonly buyers: BuyerCalls,
    private readonly state: SearchStatePublisher,
  ) {}

  async run(msg: DeliveryRequestedV1): Promise<SubmitAnswerV1> {
    // Opened before the attempt is claimed: a key store away fails the message here, with nothing recorded.
    const opened = await this.buyers.open(msg);
    const claim = await this.ledger.claimAttempt(msg.leadId);
    if (claim.claimed) return this.settleDurably(msg, await this.buyers.send(msg, opened));
    const first = await this.leads.find(msg.leadId);
    if (first && first.status !== 'pending') return this.decided(first);
    return this.resume(msg, claim.startedAt, opened);
  }

  /**
   * An earlier handler started this delivery: it may still be running (a
   * broker hiccup redelivered the message), be dead, or be done. Its deadline
   * is waited out; if it has not decided by then, it never will, and the lead
   * is sent again (a buyer that honours idempotency keys: one handler wins the
   * attempt's restart, the others wait out its deadline in turn) or decided
   * unanswered.
   */
  private async resume(msg: DeliveryRequestedV1, startedAt: Date, opened: StoredContact | null | undefined): Promise<SubmitAnswerV1> {
    const staleMs = buyerDeadlineMs(msg.buyer) + INTERRUPTED_GRACE_MS;
    for (let since = startedAt; ;) {
      const waitMs = since.getTime() + staleMs - Date.now();
      if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
      const now = await this.leads.find(msg.leadId);
      if (now && now.status !== 'pending') return this.decided(now);
      if (msg.buyer.kind !== 'school' || !schoolHonoursIdempotencyKey(msg.buyer.delivery as object)) {
        this.log.warn({
          msg: 'delivery attempt interrupted; not sent again (the buyer does not honour idempotency keys): to reconcile',
          lead_id: msg.leadId,
        });
        return this.settle(msg, { outcome: 'interrupted', httpStatus: null, latencyMs: 0, detail: 'worker stopped during the call' });
      }
      const restart = await this.ledger.resendAttempt(msg.leadId, staleMs);
      if (!restart.claimed) {
        since = restart.startedAt;
        continue;
      }
      resent.inc();
      this.log.warn({ msg: 'delivery attempt interrupted; sent again with the same Idempotency-Key', lead_id: msg.leadId });
      const answer = await this.buyers.send(msg, opened);
      return this.settleDurably(msg, {
        ...answer,
        detail: `sent again after an interrupted call${answer.detail ? `; ${answer.detail}` : ''}`.slice(0, 500),
      });
    }
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
  private async settleDurably(msg: DeliveryRequestedV1, buyer: BuyerAnswer): Promise<SubmitAnswerV1> {
    const giveUpAt = Date.now() + SETTLE_PERSIST_MS;
    for (let delayMs = 250; ; delayMs = Math.min(delayMs * 2, 5_000)) {
      try {
        return await this.settle(msg, buyer);
      } catch (e) {
        if (Date.now() + delayMs > giveUpAt) throw e;
        settleRetries.inc();
        this.log.warn({
          msg: "booking the buyer's answer failed; retrying",
          lead_id: msg.leadId,
          outcome: buyer.outcome,
          err: (e as Error).message,
        });
        await new Promise((r) => setTimeout(r, delayMs));
      }
    }
  }

  private async settle(msg: DeliveryRequestedV1, buyer: BuyerAnswer): Promise<SubmitAnswerV1> {
    const settlement: Settlement = {
      leadId: msg.leadId,
      outcome: buyer.outcome,
      decision: buyerDecision(buyer.outcome),
      attempt: { httpStatus: buyer.httpStatus, latencyMs: buyer.latencyMs, detail: buyer.detail },
      payout: centsOrNull(msg.payout),
      endsOtherSales: endsOtherSales(msg.offerType),
    };
    const { lead, search } = await this.ledger.settle(settlement);
    // The call was cut and not made again (here, or by partner-adapter for a partner): the buyer may hold the lead.
    if (buyer.outcome === 'interrupted') unresolved.inc();
    if (lead.decidedBy === 'buyer' || buyer.outcome === 'interrupted')
      decisions.inc({ code: lead.code ?? 'PENDING', test: String(lead.isTest) });
    // The search's counters changed: polls read them from Redis. A failed write fails the message; its
    // redelivery finds the lead decided and rebuilds the state (decided()).
    if (search) await this.state.write(search, []);
    return answer(lead);
  }

  /** A redelivery of a lead already decided: its answer, and (an acceptance) its search's state written again. */
  private async decided(lead: StoredLead): Promise<SubmitAnswerV1> {
    if (lead.status === 'accepted' && lead.searchId) await this.state.resync(lead.searchId);
    return answer(lead);
  }
}

const answer = (lead: StoredLead): SubmitAnswerV1 => ({ kind: 'decision', decision: decisionOf(lead) });
