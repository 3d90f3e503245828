import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { PartnerSearchRequestedV2, SearchMeta, SearchRequestedV1 } from '@lr/contracts';
import {
  CampaignOffer,
  capsAt,
  contactFieldsAtSearch,
  contactValuesOf,
  eraseStoredContact,
  judgeOffers,
  Lead,
  leadOptOutKeys,
  OfferVerdict,
  partnerSearchView,
  PersonKeySecret,
  SaleFacts,
  SearchDerived,
  searchFieldsOf,
  StoredContact,
  testMode,
} from '@lr/domain';
import { counter, histogram } from '@lr/observability';
import { NewResult, newResult, SaleLedger, SearchRepository } from '@lr/persistence';
import { CampaignCatalog } from '@lr/platform';
import { searchAnswerBody, SearchStatePublisher } from '@lr/search-state';
import { resultsShown } from '../search-metrics';
import { PartnerCall, partnerCall, planSearch, SearchPlan } from './search-plan';

const expired = counter('search_requests_expired_total', 'Search requests dropped because the gateway had stopped waiting');
const shownOnStart = histogram('search_first_results', 'Results in a search answer (own offers)', [], [0, 1, 2, 5, 10, 20, 50, 100]);
const stageSeconds = histogram(
  'search_start_stage_seconds',
  'Time a search start spends in each stage',
  ['stage'],
  [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
);
const partnersAsked = counter('search_partner_requests_total', 'Partner networks asked, by partner', ['partner']);

/** What a search's start answers, and the partner request its handler publishes. */
export interface StartedSearch {
  /** The search answer's HTTP body; null when nobody waits for it (the gateway stopped waiting). */
  body: Buffer | null;
  /** One request for every partner network to ask (null: none to ask). */
  partnerRequest: PartnerSearchRequestedV2 | null;
}

/**
 * A search's first step (gateway -> here, request/reply): judge every offer
 * of the campaign for the lead (libs/domain judgeOffers: eligibility, the caps,
 * the person already sold to the offer; on facts read in one statement),
 * store the search with its first results (own offers) in one statement,
 * publish the state for polls, and answer the search's HTTP body with the
 * partner request to send (every partner network, each with its qualifying
 * offers, in one message). A request the gateway stopped waiting for before this ran stores
 * nothing (the affiliate searches again).
 */
@Injectable()
export class StartSearch {
  private readonly log = new Logger(StartSearch.name);

  constructor(
    private readonly catalog: CampaignCatalog,
    private readonly ledger: SaleLedger,
    private readonly searches: SearchRepository,
    private readonly state: SearchStatePublisher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async run(msg: SearchRequestedV1, now = new Date()): Promise<StartedSearch> {
    if (Date.parse(msg.replyBy) <= now.getTime()) return this.late(msg);
    const stage = stageTimer();
    const offers = await this.catalog.offersOf(msg.campaignId);
    stage('catalog');
    const keys = personFacts(msg, this.config.personKeySecret);
    const { verdicts, suppressed } = await this.judge(msg, keys, offers, now);
    stage('checks');
    // A person who opted out is not processed: their search is stored (for operators, and its hashed keys) without contact data.
    const contact = storedContact(
      { lead: msg.lead as Lead, tracking: msg.tracking, consumerIp: msg.consumerIp, ipSource: msg.ipSource },
      suppressed,
    );
    const plan = planSearch(offers, verdicts, testMode(msg.isTest), now);
    const results = plan.shown.map((c): NewResult => newResult(c));
    stage('plan');

    const closesAt = this.closesAt(msg);
    const stored = await this.searches.store({
      id: msg.searchId,
      affiliateId: msg.affiliateId,
      campaignId: msg.campaignId,
      apiKeyId: msg.apiKeyId,
      isTest: msg.isTest,
      lead: contact.lead,
      tracking: contact.tracking,
      consumerIp: contact.consumerIp,
      ipSource: msg.ipSource,
      tcpaConsent: msg.tcpaConsent,
      formCertUrl: msg.formCertUrl,
      universalLeadCert: msg.universalLeadCert,
      createdAt: new Date(msg.requestedAt),
      closesAt,
      personKeys: keys.personKeys,
      // The contact data as the gateway sealed it, never opened here; none kept for a suppressed person.
      contact: suppressed ? null : (msg.contact ?? null),
      decisions: plan.decisions,
      results,
      partnerCalls: plan.partnerCalls.map((c) => ({ partnerId: c.partner.id, offerIds: c.offers.map((o) => o.offerId) })),
    });
    stage('store');
    if (!stored) {
      // A redelivery: the first run stored the search; answer what is stored, finish what it may not have.
      const state = await this.state.resync(msg.searchId, true);
      return { body: searchAnswerBody(state.meta, state.entries, now).body, partnerRequest: await this.pendingRequest(msg, offers) };
    }
    const meta = firstMeta(msg, plan, closesAt);
    await this.state.writeBestEffort(
      meta,
      results.map((r) => ({ id: r.id, json: r.entryJson, expiresAt: r.expiresAt })),
    );
    stage('publish');
    shownOnStart.observe(plan.shown.length);
    resultsShown.inc({ source: 'own' }, plan.shown.length);
    return {
      body: searchAnswerBody(
        meta,
        results.map((r) => r.entryJson),
        now,
      ).body,
      partnerRequest: this.request(msg, plan.partnerCalls),
    };
  }

  /**
   * Every offer's verdict (libs/domain judgeOffers): the offer and its
   * programs first (no I/O), then, for the offers still in, the sale facts in
   * one statement (caps' usage, the person's earlier sales, their
   * suppression; a new search has sold nothing yet). With no offer still in,
   * the suppression alone is read (when the lead has contact keys to check),
   * so that a suppressed person's search is never stored with their contact data.
   */
  private async judge(
    msg: SearchRequestedV1,
    keys: PersonFacts,
    offers: readonly CampaignOffer[],
    now: Date,
  ): Promise<{ verdicts: OfferVerdict[]; suppressed: boolean }> {
    const lead = msg.lead as Lead;
    const mode = testMode(msg.isTest);
    const { verdicts, facts } = await judgeOffers(offers, lead, { kind: 'catalog' }, now, mode).read((candidates) =>
      this.saleFacts(keys, candidates, now),
    );
    if (facts) return { verdicts, suppressed: facts.suppressed };
    if (keys.optOutKeys.length === 0) return { verdicts, suppressed: false };
    return { verdicts, suppressed: (await this.saleFacts(keys, [], now)).suppressed };
  }

  /** The sale facts of the candidates, and the person's suppression, in one statement (the person's sales only when an offer is judged). */
  private saleFacts(keys: PersonFacts, candidates: readonly CampaignOffer[], now: Date): Promise<SaleFacts> {
    return this.ledger.saleFacts({
      groupId: null,
      slots: candidates.flatMap((o) => capsAt(o.caps, now).map((c) => c.slot)),
      keys: candidates.length === 0 ? [] : keys.personKeys,
      offerIds: candidates.map((o) => o.offerId),
      optOutKeys: keys.optOutKeys,
    });
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
  private async late(msg: SearchRequestedV1): Promise<StartedSearch> {
    if (!(await this.searches.exists(msg.searchId))) {
      this.log.warn({ msg: 'search request expired before it was handled; dropped', search_id: msg.searchId, reply_by: msg.replyBy });
      expired.inc();
      return { body: null, partnerRequest: null };
    }
    const offers = await this.catalog.offersOf(msg.campaignId);
    await this.state.resync(msg.searchId, true);
    return { body: null, partnerRequest: await this.pendingRequest(msg, offers) };
  }

  /** After a redelivery: the partner calls the first run stored but may not have sent. */
  private async pendingRequest(msg: SearchRequestedV1, offers: readonly CampaignOffer[]): Promise<PartnerSearchRequestedV2 | null> {
    const byId = new Map(offers.map((o) => [o.offerId, o]));
    const calls = (await this.searches.pendingPartnerCalls(msg.searchId)).flatMap((c) => {
      const group = c.offerIds.map((id) => byId.get(id)).filter((o): o is CampaignOffer => o?.partner != null);
      return group.length > 0 ? [partnerCall(group)] : [];
    });
    return this.request(msg, calls);
  }

  /**
   * The request to the partner networks (partner-adapter calls each with its
   * deadline, never past the search's close). Each partner's view of the
   * search is made here, before the message exists (libs/domain
   * partnerSearchView): the message holds no more than the partners on it are
   * configured to receive.
   */
  private request(msg: SearchRequestedV1, calls: readonly PartnerCall[]): PartnerSearchRequestedV2 | null {
    if (calls.length === 0) return null;
    for (const call of calls) partnersAsked.inc({ partner: call.partner.name });
    const today = new Date(msg.requestedAt);
    const search = { lead: msg.lead, tracking: msg.tracking, derived: msg.derived?.partner };
    return {
      searchId: msg.searchId,
      campaignId: msg.campaignId,
      partners: calls.map((c) => {
        const fields = searchFieldsOf(c.partner.settings);
        // A partner configured for contact data at search gets the sealed part too, which partner-adapter opens for the call.
        const contact = msg.contact && contactFieldsAtSearch(fields).length > 0 ? { contact: msg.contact } : {};
        return { partner: c.partner, offers: c.offers, ...partnerSearchView(search, fields, today), ...contact };
      }),
      isTest: msg.isTest,
      closesAt: this.closesAt(msg).toISOString(),
    };
  }
}

/** The person's keys of a search: as the gateway derived them before sealing its contact data, or from an older gateway's whole lead. */
type PersonFacts = Pick<SearchDerived, 'personKeys' | 'optOutKeys'>;

function personFacts(msg: SearchRequestedV1, secret: PersonKeySecret): PersonFacts {
  if (msg.derived) return msg.derived;
  const lead = msg.lead as Lead;
  return { personKeys: testMode(msg.isTest).personKeys(secret, lead), optOutKeys: leadOptOutKeys(secret, lead) };
}

/** The contact columns a search stores: as sent, or without contact data for a suppressed person (libs/domain eraseStoredContact). */
function storedContact(c: StoredContact, suppressed: boolean): StoredContact {
  return suppressed ? eraseStoredContact(c, contactValuesOf([c.lead])) : c;
}

/** The state of a search just stored (version 1), built from what was stored rather than read back. */
function firstMeta(msg: SearchRequestedV1, plan: SearchPlan, closesAt: Date): SearchMeta {
  return {
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
    order: plan.shown.map((c) => c.resultId),
  };
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
