import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OfferCheckOutcome, PartnerOfferResult, PartnerSearchAnsweredV1 } from '@lr/contracts';
import { Lead, leadDedupeKeys, mergeResults } from '@lr/domain';
import { counter } from '@lr/observability';
import { CampaignOfferRecord, offersAlreadySoldToPerson, PartnerAnswerContext, partnerAnswerContext } from '@lr/persistence';
import { CampaignCatalog, judgeCandidates, screenOffers, SearchStatePublisher } from '@lr/platform';
import { partnerResult, ResultCandidate } from './result-entries';
import { resultsShown } from './search-metrics';
import { OfferDecision, SearchResultsRepository, ShownResult } from './search-results.repository';

const answers = counter('search_partner_answers_total', 'Partner answers merged into searches, by outcome', ['outcome']);
const lateAnswers = counter('search_partner_answers_late_total', 'Partner answers that arrived after their search closed');
const conflicts = counter('search_partner_answer_conflicts_total', 'Partner answers merged again because the search changed meanwhile');

/**
 * Reads and writes before a partner answer gives up (the message is then
 * retried by the transport): each conflict means another answer or a sale of
 * the same search committed in between, and a search has a handful of those.
 */
const MAX_ATTEMPTS = 8;

/**
 * A partner's answer to a search: its results pass the same checks as own
 * offers (the same code as the checks service, screenOffers and
 * judgeCandidates, on facts read now), then merge into the list in rank order
 * (a live search still shows each school once, and nothing shown before is
 * removed). The call is marked answered; when no call is pending the search is
 * done.
 *
 * Two statements when nothing races: one read (the search, the call, the list,
 * the check facts: one snapshot) and one optimistic write on the version read.
 * When the search changed in between (the other partner's answer, a sale), the
 * answer is read and merged again. Idempotent: only a pending call takes an
 * answer, so a redelivered answer writes nothing and only rebuilds the hot
 * state in Redis.
 */
@Injectable()
export class PartnerAnswerService {
  private readonly log = new Logger(PartnerAnswerService.name);

  constructor(
    private readonly ds: DataSource,
    private readonly catalog: CampaignCatalog,
    private readonly results: SearchResultsRepository,
    private readonly state: SearchStatePublisher,
  ) {}

  async merge(msg: PartnerSearchAnsweredV1): Promise<void> {
    const offerIds = [...new Set(msg.results.map((r) => r.offerId))];
    for (let attempt = 1; ; attempt++) {
      const search = await partnerAnswerContext(this.ds, { searchId: msg.searchId, partnerId: msg.partnerId, offerIds });
      if (!search) {
        this.log.warn({ msg: 'partner answer for an unknown search or partner call; dropped', search_id: msg.searchId, partner_id: msg.partnerId });
        return;
      }
      // Answered before (a redelivery, or a twin delivery that won): the first run's Redis write may not have happened.
      if (!search.pending) {
        await this.state.resync(msg.searchId);
        return;
      }
      const now = new Date();
      const open = now < search.closesAt;
      const change = open ? await this.mergeIntoList(msg, search, now) : { order: search.resultOrder, added: [], decisions: {} };
      const meta = await this.results.saveAnswer(
        msg.searchId,
        search.version,
        { partnerId: msg.partnerId, outcome: msg.outcome, latencyMs: Math.round(msg.latencyMs), resultCount: msg.results.length, detail: msg.detail ?? null },
        change,
      );
      if (meta) {
        answers.inc({ outcome: msg.outcome });
        if (!open) lateAnswers.inc();
        resultsShown.inc({ source: 'partner' }, change.added.length);
        // A Redis failure throws, so the message is retried; the retry (the call is answered) rebuilds the state from PostgreSQL.
        await this.state.write(meta, change.added.map((c) => ({ id: c.resultId, entry: c.entry })));
        return;
      }
      if (attempt >= MAX_ATTEMPTS) throw new Error(`search ${msg.searchId} changed under ${attempt} merges of one partner answer`);
      conflicts.inc();
    }
  }

  /** The answer's results that pass the checks, merged into the list read; a decision for each. */
  private async mergeIntoList(
    msg: PartnerSearchAnsweredV1,
    search: PartnerAnswerContext,
    now: Date,
  ): Promise<{ order: string[]; added: ResultCandidate[]; decisions: Record<string, OfferDecision> }> {
    const asked = new Set(search.callOfferIds);
    const results = msg.results.filter((r) => asked.has(r.offerId));
    const decisions: Record<string, OfferDecision> = {};
    if (results.length === 0) return { order: search.resultOrder, added: [], decisions };

    const byId = new Map((await this.catalog.offersOf(search.campaignId)).map((o) => [o.offerId, o]));
    const verdict = new Map((await this.check(search, byId, results, now)).map((o) => [o.offerId, o]));
    const incoming: ResultCandidate[] = [];
    for (const r of results) {
      const offer = byId.get(r.offerId);
      const outcome = verdict.get(r.offerId);
      if (!offer || !outcome) continue;
      if (!outcome.qualifies) {
        decisions[r.offerId] = { shown: false, reason: outcome.refusal, ...(outcome.detail ? { detail: outcome.detail } : {}) };
        continue;
      }
      incoming.push(partnerResult(offer, search.campaignId, r, now));
    }
    const shown: ShownResult[] = search.shown.map((r) => ({
      resultId: r.id,
      offerId: r.offer_id,
      schoolId: r.school_id,
      priority: r.priority,
      source: r.source,
      name: r.name,
      ...(r.payout !== null ? { payout: Number(r.payout) } : {}),
    }));
    const merged = mergeResults<ShownResult>(shown, incoming, search.isTest ? 'test' : 'live');
    const addedIds = new Set(merged.added.map((c) => c.resultId));
    const added = incoming.filter((c) => addedIds.has(c.resultId));
    for (const c of incoming) {
      decisions[c.offerId] = addedIds.has(c.resultId) ? { shown: true, result_id: c.resultId } : { shown: false, reason: 'school_already_shown' };
    }
    return { order: merged.ordered.map((r) => r.resultId), added, decisions };
  }

  /** The search-time checks on the partner's results, on the facts read with the search. */
  private async check(
    search: PartnerAnswerContext,
    catalog: Map<string, CampaignOfferRecord>,
    results: PartnerOfferResult[],
    now: Date,
  ): Promise<OfferCheckOutcome[]> {
    const lead = search.lead as Lead;
    const offerIds = [...new Set(results.map((r) => r.offerId))];
    const screened = screenOffers(catalog, offerIds, lead, now);
    let alreadySold = search.facts.alreadySold;
    if (alreadySold === null) {
      // A live search stored before person keys were: normalize its lead here.
      const offers = screened.candidates.map((c) => ({ offerId: c.offer.offerId, windowDays: c.offer.duplicateWindowDays }));
      alreadySold = await offersAlreadySoldToPerson(this.ds, leadDedupeKeys(lead), offers);
    }
    return judgeCandidates(offerIds, screened, { ...search.facts, alreadySold });
  }
}
