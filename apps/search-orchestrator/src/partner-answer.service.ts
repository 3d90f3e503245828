import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  MESSAGE_TYPES,
  OfferCheckOutcome,
  OffersCheckAnswerV1,
  OffersCheckRequestedV1,
  PartnerOfferResult,
  PartnerSearchAnsweredV1,
  SearchMeta,
} from '@lr/contracts';
import { mergeResults } from '@lr/domain';
import { AmqpConnection } from '@lr/messaging';
import { counter } from '@lr/observability';
import { CampaignOfferRecord, runOnce } from '@lr/persistence';
import { CampaignCatalog } from '@lr/platform';
import { partnerResult, ResultCandidate } from './result-entries';
import { resultsShown } from './search-metrics';
import { OfferDecision, SearchResultsRepository, ShownResult } from './search-results.repository';
import { SearchStatePublisher } from '@lr/platform';
import { CONSUMER } from './search-start.service';

const answers = counter('search_partner_answers_total', 'Partner answers merged into searches, by outcome', ['outcome']);
const lateAnswers = counter('search_partner_answers_late_total', 'Partner answers that arrived after their search closed');

/** A committed change of a search's list: what Redis needs to follow it. */
interface StateChange {
  meta: SearchMeta;
  added: ResultCandidate[];
}

/** How long the checks may take on a partner's results. */
const CHECKS_TIMEOUT_MS = 5000;

/**
 * A partner's answer to a search: its results pass the same checks as own
 * offers, then merge into the list in rank order (a live search still shows
 * each school once, and nothing shown before is removed). The call is marked
 * answered; when no call is pending the search is done. Idempotent: the answer
 * has a deterministic message id, and only a pending call takes an answer.
 */
@Injectable()
export class PartnerAnswerService {
  private readonly log = new Logger(PartnerAnswerService.name);

  constructor(
    private readonly ds: DataSource,
    private readonly amqp: AmqpConnection,
    private readonly catalog: CampaignCatalog,
    private readonly results: SearchResultsRepository,
    private readonly state: SearchStatePublisher,
  ) {}

  async merge(msg: PartnerSearchAnsweredV1, meta: { messageId: string; type: string; correlationId: string }): Promise<void> {
    const search = await this.searchOf(msg);
    if (!search) {
      this.log.warn({ msg: 'partner answer for an unknown search or partner call; dropped', search_id: msg.searchId, partner_id: msg.partnerId });
      return;
    }
    const open = Date.now() < search.closesAt.getTime();
    const offers = open && msg.results.length > 0 ? await this.catalog.offersOf(search.campaignId) : [];
    const results = msg.results.filter((r) => search.offerIds.has(r.offerId));
    const outcomes = open && results.length > 0 ? (await this.check(msg, search, results, meta.correlationId)).outcomes : [];

    let change: StateChange | undefined;
    const firstTime = await runOnce(this.ds, CONSUMER, meta, async (em) => {
      change = await this.apply(em, msg, offers, results, outcomes);
    });
    answers.inc({ outcome: msg.outcome });
    // A Redis failure throws, so the message is retried; the retry (a no-op in PostgreSQL) rebuilds the state from there.
    if (!firstTime) await this.state.resync(msg.searchId);
    else if (change) {
      resultsShown.inc({ source: 'partner' }, change.added.length);
      await this.state.write(change.meta, change.added.map((c) => ({ id: c.resultId, entry: c.entry })));
    }
  }

  private async searchOf(msg: PartnerSearchAnsweredV1) {
    const rows: Array<{ campaign_id: string; is_test: boolean; closes_at: Date; lead: OffersCheckRequestedV1['lead']; offer_ids: string[] }> =
      await this.ds.query(
        `SELECT s.campaign_id, s.is_test, s.closes_at, s.lead, c.offer_ids
           FROM searches s JOIN search_partner_calls c ON c.search_id = s.id
          WHERE s.id = $1 AND c.partner_id = $2`,
        [msg.searchId, msg.partnerId],
      );
    const r = rows[0];
    return r && { campaignId: r.campaign_id, isTest: r.is_test, closesAt: new Date(r.closes_at), lead: r.lead, offerIds: new Set(r.offer_ids) };
  }

  private check(
    msg: PartnerSearchAnsweredV1,
    search: { campaignId: string; isTest: boolean; lead: OffersCheckRequestedV1['lead'] },
    results: PartnerOfferResult[],
    correlationId: string,
  ): Promise<OffersCheckAnswerV1> {
    const request: OffersCheckRequestedV1 = {
      searchId: msg.searchId,
      campaignId: search.campaignId,
      isTest: search.isTest,
      lead: search.lead,
      offerIds: [...new Set(results.map((r) => r.offerId))],
      searchStored: true,
    };
    return this.amqp.request(MESSAGE_TYPES.OffersCheckRequested, request, { timeoutMs: CHECKS_TIMEOUT_MS, correlationId });
  }

  private async apply(
    em: EntityManager,
    msg: PartnerSearchAnsweredV1,
    offers: CampaignOfferRecord[],
    results: PartnerOfferResult[],
    outcomes: OfferCheckOutcome[],
  ): Promise<StateChange | undefined> {
    const search = await this.results.lockSearch(em, msg.searchId);
    if (!search) return undefined;
    const shown = await this.results.answerCall(em, msg.searchId, {
      partnerId: msg.partnerId,
      outcome: msg.outcome,
      latencyMs: Math.round(msg.latencyMs),
      resultCount: msg.results.length,
      detail: msg.detail ?? null,
    });
    if (!shown) return undefined; // this call already took an answer

    const now = new Date();
    const decisions: Record<string, OfferDecision> = {};
    let merged: { order: string[]; added: ResultCandidate[] } = { order: search.resultOrder, added: [] };
    if (now < search.closesAt) {
      merged = this.mergeIntoList(shown, search, offers, results, outcomes, now, decisions);
    } else {
      lateAnswers.inc();
    }
    const meta = await this.results.saveChange(em, msg.searchId, merged.order, decisions, merged.added);
    return { meta, added: merged.added };
  }

  private mergeIntoList(
    shown: ShownResult[],
    search: { campaignId: string; isTest: boolean },
    offers: CampaignOfferRecord[],
    results: PartnerOfferResult[],
    outcomes: OfferCheckOutcome[],
    now: Date,
    decisions: Record<string, OfferDecision>,
  ): { order: string[]; added: ResultCandidate[] } {
    const byId = new Map(offers.map((o) => [o.offerId, o]));
    const verdict = new Map(outcomes.map((o) => [o.offerId, o]));
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
    const merged = mergeResults<ShownResult>(shown, incoming, search.isTest ? 'test' : 'live');
    const addedIds = new Set(merged.added.map((c) => c.resultId));
    const added = incoming.filter((c) => addedIds.has(c.resultId));
    for (const c of incoming) {
      decisions[c.offerId] = addedIds.has(c.resultId) ? { shown: true, result_id: c.resultId } : { shown: false, reason: 'school_already_shown' };
    }
    return { order: merged.ordered.map((r) => r.resultId), added };
  }
}
