import { Injectable, Logger } from '@nestjs/common';
import type { PartnerSearchAnsweredV1 } from '@lr/contracts';
import { CampaignOffer, capsAt, eligibilityVerdict, Lead, mergeResults, notOnCampaign, OfferVerdict, partnerResult, ResultCandidate, SaleFacts, saleVerdict, testMode } from '@lr/domain';
import { counter } from '@lr/observability';
import { AnswerWrite, NewResult, OfferDecision, PartnerAnswerContext, SaleLedger, SearchRepository, ShownResult } from '@lr/persistence';
import { CampaignCatalog, SearchStatePublisher } from '@lr/platform';
import { resultsShown } from '../search-metrics';

const answers = counter('search_partner_answers_total', 'Partner answers merged into searches, by outcome', ['outcome']);
const lateAnswers = counter('search_partner_answers_late_total', 'Partner answers that arrived after their search closed');
const conflicts = counter('search_partner_answer_conflicts_total', 'Partner answers merged again because the search changed meanwhile');

/** Why an offer the partner was asked about shows nothing: the partner's answer had no result for it, failed, or came after the search closed. */
function unanswered(msg: PartnerSearchAnsweredV1, open: boolean): OfferDecision {
  if (!open) return { shown: false, reason: 'partner_late' };
  if (msg.outcome === 'answered') return { shown: false, reason: 'partner_no_result' };
  return { shown: false, reason: `partner_${msg.outcome}`, ...(msg.detail ? { detail: msg.detail } : {}) };
}

/**
 * Merges before a partner answer gives up (the message is then retried by
 * the transport): the write is still conditional on the version read, so a
 * writer of the search that took no lock would make the merge run again.
 */
const MAX_ATTEMPTS = 8;

/**
 * A partner's answer to a search: its results are judged by the same rules
 * as own offers (libs/domain qualify, on facts read with the search), then
 * merged into the list in rank order (a live search still shows each school
 * once, and nothing shown before is removed). The call is marked answered;
 * when no call is pending the search is done.
 *
 * One transaction of two round trips (SearchRepository.mergeAnswer): the
 * search's row lock with the read (the search, the call, the list, the
 * facts: one snapshot), then the write with COMMIT. The other partner's
 * answer, or a sale, of the same search waits for the lock rather than
 * reading and merging twice. Idempotent: only a pending call takes an
 * answer, so a redelivered answer writes nothing and only rebuilds the hot
 * state in Redis.
 */
@Injectable()
export class MergePartnerAnswer {
  private readonly log = new Logger(MergePartnerAnswer.name);

  constructor(
    private readonly catalog: CampaignCatalog,
    private readonly searches: SearchRepository,
    private readonly ledger: SaleLedger,
    private readonly state: SearchStatePublisher,
  ) {}

  async run(msg: PartnerSearchAnsweredV1): Promise<void> {
    const offerIds = [...new Set(msg.results.map((r) => r.offerId))];
    // The campaign's offers give the cap slots the read needs (an answer from an earlier release names no campaign: read it first).
    const campaignId = msg.campaignId ?? (await this.searches.campaignOf(msg.searchId));
    if (!campaignId) return this.unknown(msg);
    const offers = await this.catalog.offersOf(campaignId);
    for (let attempt = 1; ; attempt++) {
      const now = new Date();
      const judged = offers.filter((o) => offerIds.includes(o.offerId));
      const query = { searchId: msg.searchId, partnerId: msg.partnerId, offerIds, slots: judged.flatMap((o) => capsAt(o.caps, now).map((c) => c.slot)) };
      let added: NewResult[] = [];
      let open = false;
      const outcome = await this.searches.mergeAnswer(query, async (search): Promise<AnswerWrite | null> => {
        // Answered before (a redelivery, or a twin delivery that won): nothing to write.
        if (!search.pending) return null;
        open = now < search.closesAt;
        const change = open ? await this.mergeIntoList(msg, search, offers, now) : { order: search.resultOrder, added: [], decisions: {} };
        // Every offer the call asked about gets its outcome (it was `partner_asked`): what the merge decided, else why nothing came.
        for (const offerId of search.callOfferIds) change.decisions[offerId] ??= unanswered(msg, open);
        added = change.added.map(
          (c): NewResult => ({ id: c.resultId, offerId: c.offerId, campaignId: search.campaignId, entryJson: Buffer.from(JSON.stringify(c.entry)), partnerData: c.partnerData, expiresAt: c.expiresAt }),
        );
        return {
          answer: { partnerId: msg.partnerId, outcome: msg.outcome, latencyMs: Math.round(msg.latencyMs), resultCount: msg.results.length, detail: msg.detail ?? null },
          change: { order: change.order, decisions: change.decisions, added },
        };
      });
      if (outcome.kind === 'unknown') return this.unknown(msg);
      // The first run's Redis write may not have happened.
      if (outcome.kind === 'unchanged') return void (await this.state.resync(msg.searchId));
      if (outcome.kind === 'saved') {
        answers.inc({ outcome: msg.outcome });
        if (!open) lateAnswers.inc();
        resultsShown.inc({ source: 'partner' }, added.length);
        // A Redis failure throws, so the message is retried; the retry (the call is answered) rebuilds the state from PostgreSQL.
        await this.state.write(outcome.meta, added.map((r) => ({ id: r.id, json: r.entryJson })));
        return;
      }
      // Moved under the lock: cannot happen while every writer of the search's version takes it; read and merge again.
      if (attempt >= MAX_ATTEMPTS) throw new Error(`search ${msg.searchId} changed under ${attempt} merges of one partner answer`);
      conflicts.inc();
    }
  }

  private unknown(msg: PartnerSearchAnsweredV1): void {
    this.log.warn({ msg: 'partner answer for an unknown search or partner call; dropped', search_id: msg.searchId, partner_id: msg.partnerId });
  }

  /** The answer's results that the rules let through, merged into the list read; a decision for each. */
  private async mergeIntoList(
    msg: PartnerSearchAnsweredV1,
    search: PartnerAnswerContext,
    offers: readonly CampaignOffer[],
    now: Date,
  ): Promise<{ order: string[]; added: ResultCandidate[]; decisions: Record<string, OfferDecision> }> {
    const asked = new Set(search.callOfferIds);
    // One result per offer: a partner that repeats an offer is taken at its first result.
    const results = msg.results.filter((r, i) => asked.has(r.offerId) && msg.results.findIndex((x) => x.offerId === r.offerId) === i);
    const decisions: Record<string, OfferDecision> = {};
    if (results.length === 0) return { order: search.resultOrder, added: [], decisions };

    const byId = new Map(offers.map((o) => [o.offerId, o]));
    const verdicts = await this.judge(search, byId, [...new Set(results.map((r) => r.offerId))], now);
    const incoming: ResultCandidate[] = [];
    for (const r of results) {
      const offer = byId.get(r.offerId);
      const verdict = verdicts.get(r.offerId)!;
      if (!verdict.qualifies) {
        decisions[r.offerId] = { shown: false, reason: verdict.refusal, ...(verdict.detail ? { detail: verdict.detail } : {}) };
        continue;
      }
      incoming.push(partnerResult(offer!, r, now));
    }
    const mode = testMode(search.isTest);
    const merged = mergeResults<ShownResult | ResultCandidate>(search.shown, incoming, mode.ranking);
    const addedIds = new Set(merged.added.map((c) => c.resultId));
    const added = incoming.filter((c) => addedIds.has(c.resultId));
    for (const c of incoming) {
      decisions[c.offerId] = addedIds.has(c.resultId) ? { shown: true, result_id: c.resultId } : { shown: false, reason: 'school_already_shown' };
    }
    return { order: merged.ordered.map((r) => r.resultId), added, decisions };
  }

  /** The verdict on each offer a partner answered for: the offer's own rules (the partner supplies programs), then the sale facts read with the search. */
  private async judge(search: PartnerAnswerContext, byId: ReadonlyMap<string, CampaignOffer>, offerIds: readonly string[], now: Date): Promise<Map<string, OfferVerdict>> {
    const lead = search.lead;
    const mode = testMode(search.isTest);
    const facts: SaleFacts = { ...search.facts, lastSales: search.facts.lastSales ?? (await this.lastSalesOfOldSearch(lead, offerIds)) };
    return new Map(
      offerIds.map((id): [string, OfferVerdict] => {
        const offer = byId.get(id);
        if (!offer) return [id, notOnCampaign(id)];
        const eligible = eligibilityVerdict(offer, lead, now, { kind: 'partner' });
        return [id, eligible.qualifies ? saleVerdict(offer, facts, mode, now) ?? eligible : eligible];
      }),
    );
  }

  /** A live search stored before its person keys were kept: the keys from its lead. */
  private async lastSalesOfOldSearch(lead: Lead, offerIds: readonly string[]): Promise<SaleFacts['lastSales']> {
    return (await this.ledger.saleFacts({ groupId: null, slots: [], keys: testMode(false).personKeys(lead), offerIds })).lastSales;
  }
}
