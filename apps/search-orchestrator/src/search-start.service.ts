import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@lr/config';
import {
  MAX_ACCEPTED_SUBMISSIONS,
  MESSAGE_TYPES,
  OfferCheckOutcome,
  OffersCheckAnswerV1,
  OffersCheckRequestedV1,
  PartnerSearchRequestedV1,
  SearchAnswerV1,
  SearchRequestedV1,
  SearchMeta,
  SearchState,
} from '@lr/contracts';
import { Lead, leadDedupeKeys, mergeResults } from '@lr/domain';
import { AmqpConnection } from '@lr/messaging';
import { counter, histogram } from '@lr/observability';
import { CampaignOfferRecord } from '@lr/persistence';
import { CampaignCatalog } from '@lr/platform';
import { ownResult, ResultCandidate } from './result-entries';
import { resultsShown } from './search-metrics';
import { OfferDecision, RESULT_ROWS_INSERT, resultRows } from './search-results.repository';
import { SearchStatePublisher } from '@lr/platform';

export const CONSUMER = 'search-orchestrator';

const expired = counter('search_requests_expired_total', 'Search requests dropped because the gateway had stopped waiting');
const shownOnStart = histogram('search_first_results', 'Results in a search answer (own offers)', [], [0, 1, 2, 5, 10, 20, 50, 100]);
const stageSeconds = histogram('search_start_stage_seconds', 'Time a search start spends in each stage', ['stage'], [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]);
const partnersAsked = counter('search_partner_requests_total', 'Partner networks asked, by partner', ['partner']);

/** Time kept back from the gateway's deadline for the write and the reply after the checks answer. */
const REPLY_MARGIN_MS = 250;

/**
 * A search's life, first step (gateway -> here, request/reply): ask checks
 * which of the campaign's offers the lead may be shown, store the search with
 * its lead and its first results (own offers) in one statement, ask each
 * partner network about its qualifying offers, publish the state for polls and
 * answer the first results.
 */
@Injectable()
export class SearchStartService {
  private readonly log = new Logger(SearchStartService.name);

  constructor(
    private readonly ds: DataSource,
    private readonly amqp: AmqpConnection,
    private readonly catalog: CampaignCatalog,
    private readonly state: SearchStatePublisher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async start(msg: SearchRequestedV1, meta: { messageId: string; type: string; correlationId: string }): Promise<SearchAnswerV1 | null> {
    const remainingMs = Date.parse(msg.replyBy) - Date.now();
    if (remainingMs <= 0) return this.late(msg, meta.correlationId);

    const stage = stageTimer();
    const offers = await this.catalog.offersOf(msg.campaignId);
    stage('catalog');
    const checks = await this.checkOffers(msg, offers, Math.max(100, remainingMs - REPLY_MARGIN_MS), meta.correlationId);
    stage('checks');
    const plan = planSearch(msg, offers, checks.outcomes, new Date());
    stage('plan');

    const firstTime = await this.store(msg, plan, meta);
    stage('store');
    if (!firstTime) {
      // A redelivery: the first run stored the search; answer what is stored, finish what it may not have.
      await this.askPartners(msg, await this.pendingCalls(msg, offers), meta.correlationId);
      return answer(await this.state.resync(msg.searchId, true));
    }
    // Independent of each other: the partner requests and the hot state for polls.
    const first = firstState(msg, plan, this.closesAt(msg));
    const [, published] = await Promise.all([
      this.askPartners(msg, plan.partnerCalls, meta.correlationId),
      this.state.writeBestEffort(first.meta, plan.shown.map((c) => ({ id: c.resultId, entry: c.entry }))),
    ]);
    stage('partners_and_publish');
    shownOnStart.observe(plan.shown.length);
    resultsShown.inc({ source: 'own' }, plan.shown.length);
    // The list is in Redis now: a gateway that reads it there gets a reply without it (a 60 KB list would
    // otherwise be serialized here, pass the broker twice and be parsed and serialized again by the gateway).
    return published && msg.readsOffersFromState ? answerByState(first.state) : answer(first.state);
  }

  private closesAt(msg: SearchRequestedV1): Date {
    return new Date(Date.parse(msg.requestedAt) + this.config.search.openSeconds * 1000);
  }

  /**
   * The gateway stopped waiting and answered 503, so the affiliate will search
   * again: a search not stored yet is dropped (storing it now would leave an
   * orphan). One already stored (a redelivery after a crash) gets its partner
   * calls and hot state completed, and no answer anyone waits for.
   */
  private async late(msg: SearchRequestedV1, correlationId: string): Promise<null> {
    const stored: unknown[] = await this.ds.query('SELECT 1 FROM searches WHERE id = $1', [msg.searchId]);
    if (stored.length === 0) {
      this.log.warn({ msg: 'search request expired before it was handled; dropped', search_id: msg.searchId, reply_by: msg.replyBy });
      expired.inc();
      return null;
    }
    const offers = await this.catalog.offersOf(msg.campaignId);
    await this.askPartners(msg, await this.pendingCalls(msg, offers), correlationId);
    await this.state.resync(msg.searchId, true);
    return null;
  }

  private checkOffers(msg: SearchRequestedV1, offers: CampaignOfferRecord[], timeoutMs: number, correlationId: string): Promise<OffersCheckAnswerV1> {
    const active = offers.filter((o) => o.status === 'active').map((o) => o.offerId);
    if (active.length === 0) return Promise.resolve({ searchId: msg.searchId, outcomes: [] });
    const request: OffersCheckRequestedV1 = {
      searchId: msg.searchId,
      campaignId: msg.campaignId,
      isTest: msg.isTest,
      lead: msg.lead,
      offerIds: active,
      searchStored: false,
    };
    return this.amqp.request<OffersCheckRequestedV1, OffersCheckAnswerV1>(MESSAGE_TYPES.OffersCheckRequested, request, {
      timeoutMs,
      correlationId,
    });
  }

  /**
   * Stores the search (with its first list, decisions and version 1), its
   * results and its partner calls, and records the message as handled: one
   * statement, so one round trip and one commit on the critical path of the
   * search answer (it was a transaction of six). Data-modifying CTEs run as a
   * unit; the rows depend on the processed-message insert, so a redelivered
   * message (its record already there) stores nothing and answers false, as
   * runOnce does. Foreign keys are checked at the end of the statement, when
   * the search row exists.
   */
  private async store(msg: SearchRequestedV1, plan: SearchPlan, meta: { messageId: string; type: string }): Promise<boolean> {
    const createdAt = new Date(msg.requestedAt);
    const closesAt = this.closesAt(msg);
    const done = plan.partnerCalls.length === 0;
    const rows: Array<{ stored: number }> = await this.ds.query(
      `WITH handled AS (
         INSERT INTO processed_messages (consumer, message_id, message_type) VALUES ($18, $19, $20)
         ON CONFLICT DO NOTHING RETURNING message_id
       ), search AS (
         INSERT INTO searches (id, affiliate_id, campaign_id, api_key_id, is_test, lead, tracking, consumer_ip, ip_source,
                               tcpa_consent, form_cert_url, universal_lead_cert, created_at, closes_at, processing_done_at,
                               state_version, offer_decisions, result_order, person_keys)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 1, $16, $17::uuid[], $23
          WHERE EXISTS (SELECT 1 FROM handled)
         RETURNING id
       ), shown AS (
         ${RESULT_ROWS_INSERT('(SELECT id FROM search)', '$21', 'WHERE EXISTS (SELECT 1 FROM search)')}
         RETURNING 1
       ), calls AS (
         INSERT INTO search_partner_calls (search_id, partner_id, offer_ids, status)
         SELECT (SELECT id FROM search), x.partner_id, ARRAY(SELECT jsonb_array_elements_text(x.offer_ids)::uuid), 'pending'
           FROM jsonb_to_recordset($22::jsonb) AS x(partner_id uuid, offer_ids jsonb)
          WHERE EXISTS (SELECT 1 FROM search)
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM search)::int AS stored`,
      [
        msg.searchId, msg.affiliateId, msg.campaignId, msg.apiKeyId, msg.isTest, JSON.stringify(msg.lead),
        JSON.stringify(msg.tracking), msg.consumerIp, msg.ipSource, msg.tcpaConsent, msg.formCertUrl,
        msg.universalLeadCert, createdAt, closesAt, done ? createdAt : null, JSON.stringify(plan.decisions),
        plan.shown.map((c) => c.resultId), CONSUMER, meta.messageId, meta.type,
        JSON.stringify(resultRows(plan.shown)),
        JSON.stringify(plan.partnerCalls.map((c) => ({ partner_id: c.partner.id, offer_ids: c.offers.map((o) => o.offerId) }))),
        // The person's duplicate keys, for the partner answers' re-checks (none for a test search: no person check).
        JSON.stringify(msg.isTest ? [] : leadDedupeKeys(msg.lead as Lead)),
      ],
    );
    return rows[0]?.stored === 1;
  }

  /** After a redelivery: the partner calls the first run stored but may not have sent. */
  private async pendingCalls(msg: SearchRequestedV1, offers: CampaignOfferRecord[]): Promise<PartnerCall[]> {
    const rows: Array<{ partner_id: string; offer_ids: string[] }> = await this.ds.query(
      `SELECT partner_id, offer_ids FROM search_partner_calls WHERE search_id = $1 AND status = 'pending'`,
      [msg.searchId],
    );
    const byId = new Map(offers.map((o) => [o.offerId, o]));
    return rows.flatMap((r) => {
      const group = r.offer_ids.map((id) => byId.get(id)).filter((o): o is CampaignOfferRecord => o?.partner != null);
      return group.length > 0 ? [partnerCall(group)] : [];
    });
  }

  private async askPartners(msg: SearchRequestedV1, calls: PartnerCall[], correlationId: string): Promise<void> {
    const closesAt = this.closesAt(msg).toISOString();
    await Promise.all(
      calls.map((call) => {
        partnersAsked.inc({ partner: call.partner.name });
        const request: PartnerSearchRequestedV1 = {
          searchId: msg.searchId,
          partner: call.partner,
          offers: call.offers,
          lead: msg.lead,
          tracking: msg.tracking,
          isTest: msg.isTest,
          closesAt,
        };
        return this.amqp.publish(MESSAGE_TYPES.PartnerSearchRequested, request, {
          messageId: `partner-search:${msg.searchId}:${call.partner.id}`,
          correlationId,
        });
      }),
    );
  }
}

interface PartnerCall {
  partner: PartnerSearchRequestedV1['partner'];
  offers: PartnerSearchRequestedV1['offers'];
}

interface SearchPlan {
  shown: ResultCandidate[];
  partnerCalls: PartnerCall[];
  decisions: Record<string, OfferDecision>;
}

/**
 * What the checks' answer means for a new search: the own offers shown (best
 * first; a live search shows each school once, a test search every offer), the
 * partners to ask (one call per partner network, for its qualifying offers) and
 * why every offer was or was not shown.
 */
export function planSearch(msg: SearchRequestedV1, offers: CampaignOfferRecord[], outcomes: OfferCheckOutcome[], now: Date): SearchPlan {
  const byId = new Map(offers.map((o) => [o.offerId, o]));
  const decisions: Record<string, OfferDecision> = {};
  for (const o of offers) if (o.status !== 'active') decisions[o.offerId] = { shown: false, reason: 'offer_inactive' };
  const own: ResultCandidate[] = [];
  const partnerOffers = new Map<string, CampaignOfferRecord[]>();
  for (const outcome of outcomes) {
    const offer = byId.get(outcome.offerId);
    if (!offer) continue;
    if (!outcome.qualifies) {
      decisions[offer.offerId] = { shown: false, reason: outcome.refusal, ...(outcome.detail ? { detail: outcome.detail } : {}) };
    } else if (offer.source === 'own') {
      own.push(ownResult(offer, msg.campaignId, outcome.programs ?? [], now));
    } else if (offer.partner) {
      const group = partnerOffers.get(offer.partner.id) ?? [];
      group.push(offer);
      partnerOffers.set(offer.partner.id, group);
      decisions[offer.offerId] = { shown: false, reason: 'partner_asked', partner: offer.partner.name };
    }
  }
  const { added } = mergeResults([], own, msg.isTest ? 'test' : 'live');
  const shown = new Set(added.map((c) => c.resultId));
  for (const c of own) {
    decisions[c.offerId] = shown.has(c.resultId) ? { shown: true, result_id: c.resultId } : { shown: false, reason: 'school_already_shown' };
  }
  return { shown: added, partnerCalls: [...partnerOffers.values()].map(partnerCall), decisions };
}

function partnerCall(group: CampaignOfferRecord[]): PartnerCall {
  return { partner: group[0].partner!, offers: group.map((o) => ({ offerId: o.offerId, externalId: o.externalId! })) };
}

/** The state of a search just stored (version 1), built from what was stored rather than read back. */
function firstState(msg: SearchRequestedV1, plan: SearchPlan, closesAt: Date): { meta: SearchMeta; state: SearchState } {
  const base = {
    searchId: msg.searchId,
    version: 1,
    affiliateId: msg.affiliateId,
    campaignId: msg.campaignId,
    isTest: msg.isTest,
    createdAt: new Date(msg.requestedAt).toISOString(),
    closesAt: closesAt.toISOString(),
    processingDone: plan.partnerCalls.length === 0,
    acceptedCount: 0,
    trueExclusiveAccepted: false,
  };
  return { meta: { ...base, order: plan.shown.map((c) => c.resultId) }, state: { ...base, offers: plan.shown.map((c) => c.entry) } };
}

/** Observes the time since the previous call under each stage's name. */
function stageTimer(): (name: string) => void {
  let last = process.hrtime.bigint();
  return (name) => {
    const now = process.hrtime.bigint();
    stageSeconds.observe({ stage: name }, Number(now - last) / 1e9);
    last = now;
  };
}

/** The answer without its offers: the gateway reads them from the search's Redis state, written before this reply. */
function answerByState(state: SearchState): SearchAnswerV1 {
  const { offers: _inState, ...head } = answer(state);
  return { ...head, offersInState: true };
}

function answer(state: SearchState): SearchAnswerV1 {
  return {
    searchId: state.searchId,
    processingDone: state.processingDone,
    acceptedCount: state.acceptedCount,
    maxAcceptedSubmissions: MAX_ACCEPTED_SUBMISSIONS,
    trueExclusiveAccepted: state.trueExclusiveAccepted,
    offers: state.offers,
  };
}
