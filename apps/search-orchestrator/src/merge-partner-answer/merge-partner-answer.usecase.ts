import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lr/config';
import type { PartnerAnswer, PartnerSearchAnsweredV2 } from '@lr/contracts';
import {
  CampaignOffer,
  capsAt,
  judgeOffers,
  Lead,
  leadOptOutKeys,
  mergeResults,
  notOnCampaign,
  OfferVerdict,
  partnerResult,
  ResultCandidate,
  SaleFacts,
  testMode,
} from '@lr/domain';
import { counter } from '@lr/observability';
import {
  AnswerWrite,
  NewResult,
  newResult,
  OfferDecision,
  PartnerAnswerContext,
  SaleLedger,
  SearchRepository,
  ShownResult,
} from '@lr/persistence';
import { CampaignCatalog } from '@lr/platform';
import { SearchStatePublisher } from '@lr/search-state';
import { resultsShown } from '../search-metrics';

const answers = counter('search_partner_answers_total', 'Partner answers merged into searches, by outcome', ['outcome']);
const lateAnswers = counter('search_partner_answers_late_total', 'Partner answers that arrived after their search closed');
const conflicts = counter('search_partner_answer_conflicts_total', 'Partner answers merged again because the search changed meanwhile');

/** Why an offer the partner was asked about shows nothing: the partner's answer had no result for it, failed, or came after the search closed. */
function unanswered(answer: PartnerAnswer, open: boolean): OfferDecision {
  if (!open) return { shown: false, reason: 'partner_late' };
  if (answer.outcome === 'answered') return { shown: false, reason: 'partner_no_result' };
  return { shown: false, reason: `partner_${answer.outcome}`, ...(answer.detail ? { detail: answer.detail } : {}) };
}

/**
 * Merges before an answer gives up (the message is then retried by the
 * transport): the write is still conditional on the version read, so a
 * writer of the search that took no lock would make the merge run again.
 */
const MAX_ATTEMPTS = 8;

/** A list being merged: its order, what is shown, what was added and decided. */
interface Merging {
  order: string[];
  shown: Array<ShownResult | ResultCandidate>;
  added: ResultCandidate[];
  decisions: Record<string, OfferDecision>;
}

/**
 * The answers of one or more partners of a search (partner-adapter sends the
 * answers that ended together in one message): each partner's results are
 * judged by the same rules as own offers (libs/domain qualify, on facts read
 * with the search), then merged into the list in rank order, one partner
 * after the other (a live search still shows each school once, and nothing
 * shown before is removed). Each call is marked answered; when no call is
 * pending the search is done.
 *
 * One transaction of two round trips for the whole message
 * (SearchRepository.mergeAnswer): the search's row lock with the read (the
 * search, the calls, the list, the facts: one snapshot), then the write with
 * COMMIT. Another answer, or a sale, of the same search waits for the lock
 * rather than reading and merging twice. Idempotent: only a pending call
 * takes an answer, so a redelivered answer writes nothing and only rebuilds
 * the hot state in Redis.
 */
@Injectable()
export class MergePartnerAnswer {
  private readonly log = new Logger(MergePartnerAnswer.name);

  constructor(
    private readonly catalog: CampaignCatalog,
    private readonly searches: SearchRepository,
    private readonly ledger: SaleLedger,
    private readonly state: SearchStatePublisher,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'personKeySecret'>,
  ) {}

  async run(msg: PartnerSearchAnsweredV2): Promise<void> {
    // A partner named twice in one message counts once, at its first answer.
    const given = msg.answers.filter((a, i) => msg.answers.findIndex((x) => x.partnerId === a.partnerId) === i);
    const offerIds = [...new Set(given.flatMap((a) => a.results.map((r) => r.offerId)))];
    const offers = await this.catalog.offersOf(msg.campaignId);
    for (let attempt = 1; ; attempt++) {
      const now = new Date();
      const judged = offers.filter((o) => offerIds.includes(o.offerId));
      const query = {
        searchId: msg.searchId,
        partnerIds: given.map((a) => a.partnerId),
        offerIds,
        slots: judged.flatMap((o) => capsAt(o.caps, now).map((c) => c.slot)),
      };
      let added: NewResult[] = [];
      let taken: PartnerAnswer[] = [];
      let notAsked: PartnerAnswer[] = [];
      let open = false;
      const outcome = await this.searches.mergeAnswer(query, async (search): Promise<AnswerWrite | null> => {
        // Only a pending call takes an answer: answered before (a redelivery, or a twin delivery that won), nothing to write.
        const pending = new Map(search.calls.filter((c) => c.pending).map((c) => [c.partnerId, c]));
        notAsked = given.filter((a) => !search.calls.some((c) => c.partnerId === a.partnerId));
        taken = given.filter((a) => pending.has(a.partnerId));
        if (taken.length === 0) return null;
        open = now < search.closesAt;
        const list: Merging = { order: search.resultOrder, shown: search.shown, added: [], decisions: {} };
        for (const answer of taken) {
          const asked = pending.get(answer.partnerId)!.offerIds;
          if (open) await this.mergeIntoList(list, answer, asked, search, offers, now);
          // Every offer the call asked about gets its outcome (it was `partner_asked`): what the merge decided, else why nothing came.
          for (const offerId of asked) list.decisions[offerId] ??= unanswered(answer, open);
        }
        added = list.added.map((c): NewResult => newResult(c));
        return {
          answers: taken.map((a) => ({
            partnerId: a.partnerId,
            outcome: a.outcome,
            latencyMs: Math.round(a.latencyMs),
            resultCount: a.results.length,
            detail: a.detail ?? null,
          })),
          change: { order: list.order, decisions: list.decisions, added },
        };
      });
      if (outcome.kind === 'unknown')
        return this.unknown(
          msg.searchId,
          given.map((a) => a.partnerId),
        );
      if (notAsked.length > 0)
        this.unknown(
          msg.searchId,
          notAsked.map((a) => a.partnerId),
        );
      // The first run's Redis write may not have happened.
      if (outcome.kind === 'unchanged') return void (await this.state.resync(msg.searchId));
      if (outcome.kind === 'saved') {
        for (const a of taken) answers.inc({ outcome: a.outcome });
        if (!open) lateAnswers.inc(taken.length);
        resultsShown.inc({ source: 'partner' }, added.length);
        this.log.debug({
          msg: 'partner answers merged',
          search_id: msg.searchId,
          partner_ids: taken.map((a) => a.partnerId),
          added: added.length,
          version: outcome.meta.version,
        });
        // A Redis failure throws, so the message is retried; the retry (the calls are answered) rebuilds the state from PostgreSQL.
        await this.state.write(
          outcome.meta,
          added.map((r) => ({ id: r.id, json: r.entryJson, expiresAt: r.expiresAt })),
        );
        return;
      }
      // Moved under the lock: cannot happen while every writer of the search's version takes it; read and merge again.
      if (attempt >= MAX_ATTEMPTS) throw new Error(`search ${msg.searchId} changed under ${attempt} merges of one partner answer`);
      conflicts.inc();
    }
  }

  private unknown(searchId: string, partnerIds: readonly string[]): void {
    this.log.warn({ msg: 'partner answer for an unknown search or partner call; dropped', search_id: searchId, partner_ids: partnerIds });
  }

  /** One partner's results that the rules let through, merged into the list; a decision for each of its offers. */
  private async mergeIntoList(
    list: Merging,
    answer: PartnerAnswer,
    askedOfferIds: readonly string[],
    search: PartnerAnswerContext,
    offers: readonly CampaignOffer[],
    now: Date,
  ): Promise<void> {
    const asked = new Set(askedOfferIds);
    // One result per offer: a partner that repeats an offer is taken at its first result.
    const results = answer.results.filter((r, i) => asked.has(r.offerId) && answer.results.findIndex((x) => x.offerId === r.offerId) === i);
    if (results.length === 0) return;

    const byId = new Map(offers.map((o) => [o.offerId, o]));
    const verdicts = await this.judge(search, byId, [...new Set(results.map((r) => r.offerId))], now);
    const incoming: ResultCandidate[] = [];
    for (const r of results) {
      const offer = byId.get(r.offerId);
      const verdict = verdicts.get(r.offerId)!;
      if (!verdict.qualifies) {
        list.decisions[r.offerId] = { shown: false, reason: verdict.refusal, ...(verdict.detail ? { detail: verdict.detail } : {}) };
        continue;
      }
      incoming.push(partnerResult(offer!, r, now));
    }
    const mode = testMode(search.isTest);
    const merged = mergeResults<ShownResult | ResultCandidate>(list.shown, incoming, mode.ranking);
    const addedIds = new Set(merged.added.map((c) => c.resultId));
    for (const c of incoming) {
      if (addedIds.has(c.resultId)) list.added.push(c);
      list.decisions[c.offerId] = addedIds.has(c.resultId)
        ? { shown: true, result_id: c.resultId }
        : { shown: false, reason: 'school_already_shown' };
    }
    list.order = merged.ordered.map((r) => r.resultId);
    list.shown = merged.ordered;
  }

  /**
   * The verdict on each offer a partner answered for (libs/domain judgeOffers):
   * the offer's own rules (the partner supplies programs), then the sale facts
   * read with the search (a search stored before its person keys were kept
   * reads the person's for the offers still in).
   */
  private async judge(
    search: PartnerAnswerContext,
    byId: ReadonlyMap<string, CampaignOffer>,
    offerIds: readonly string[],
    now: Date,
  ): Promise<Map<string, OfferVerdict>> {
    const lead = search.lead;
    const onCampaign = offerIds.flatMap((id) => byId.get(id) ?? []);
    const { verdicts } = await judgeOffers(onCampaign, lead, { kind: 'partner' }, now, testMode(search.isTest)).read(
      async (candidates): Promise<SaleFacts> =>
        search.facts.lastSales !== null
          ? { ...search.facts, lastSales: search.facts.lastSales }
          : this.factsOfOldSearch(
              search,
              lead,
              candidates.map((o) => o.offerId),
            ),
    );
    const judged = new Map(verdicts.map((v) => [v.offerId, v]));
    return new Map(offerIds.map((id): [string, OfferVerdict] => [id, judged.get(id) ?? notOnCampaign(id)]));
  }

  /** A live search stored before its person keys were kept: the person's facts from its lead. */
  private async factsOfOldSearch(search: PartnerAnswerContext, lead: Lead, offerIds: readonly string[]): Promise<SaleFacts> {
    const person = await this.ledger.saleFacts({
      groupId: null,
      slots: [],
      keys: testMode(false).personKeys(this.config.personKeySecret, lead),
      offerIds,
      optOutKeys: leadOptOutKeys(this.config.personKeySecret, lead),
    });
    return { ...search.facts, lastSales: person.lastSales, suppressed: person.suppressed };
  }
}
