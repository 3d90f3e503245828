import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { MESSAGE_TYPES, SubmitAnswerV1, SubmitRequestedV1 } from '@lr/contracts';
import { holdsContact, Lead, pendingDecision, REFUSAL, SealedContact, StoredContact, submitAnswer, SubmitAnswerBody } from '@lr/domain';
import { AmqpConnection, BrokerUnavailableError, RemoteHandlerError, ReplyLostError, RequestTimeoutError } from '@lr/messaging';
import { counter } from '@lr/observability';
import { CatalogRepository, ContactSealer, LeadRepository, SearchRepository } from '@lr/persistence';
import type { ShownResultRef } from '@lr/search-state';
import type { Principal } from '../auth/principal';
import { ApiError } from '../http/api-error';
import { DEPENDENCY_NAMES, Dependencies, DependencyFailure } from '../http/dependencies';
import { CampaignOwners, CAMPAIGN_STATUS_TTL_MS } from '../auth/campaign-owners';
import { assertAffiliate } from '../auth/campaign-access';
import { LeadsRequest } from './parse-leads-request';
import { PendingLeads } from './pending-leads';
import { IdempotentRequests, RecordedAnswer } from '../idempotency/idempotent-requests';
import { LeadStatus } from '../lead-status/lead-status.usecase';

const dead = counter(
  'gateway_submits_dead_lettered_total',
  'Submits answered PENDING because checks or delivery dead-lettered them (an operator replays them)',
);
/** The leads endpoint's answer: its HTTP status and body. */
export type SubmitAnswer = { httpStatus: 200 | 202; body: SubmitAnswerBody };

const submits = counter('gateway_submits_total', 'Leads endpoint answers with a decision, by code', ['code']);

/**
 * A result submit or direct post at the front door (affiliate-api.md, POST
 * /api/v1/engine/leads): the contract's HTTP errors are answered here (the
 * affiliate, the campaign, the result, offer or earlier lead the caller's);
 * the decision is the checks' and delivery's, over RabbitMQ. When it takes
 * longer than SUBMIT_ANSWER_TIMEOUT_MS (a slow school) the answer is PENDING
 * (202) and the decision completes anyway; the lead-status read shows it.
 * With an `Idempotency-Key`, a retry answers the decision the key's first
 * request got (a PENDING one as it is now), never a second decision
 * (docs/idempotency.md).
 */
@Injectable()
export class SubmitLead {
  constructor(
    private readonly campaigns: CampaignOwners,
    private readonly catalog: CatalogRepository,
    private readonly searches: SearchRepository,
    private readonly leads: LeadRepository,
    private readonly amqp: AmqpConnection,
    private readonly deps: Dependencies,
    private readonly pendingLeads: PendingLeads,
    private readonly idempotent: IdempotentRequests,
    private readonly leadStatus: LeadStatus,
    private readonly sealer: ContactSealer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * `key`: the request's `Idempotency-Key` (null without one); `body`: the
   * request body as sent, which the key names.
   */
  run(
    principal: Principal,
    request: LeadsRequest,
    correlationId: string,
    shown: ShownResultRef | undefined,
    key: string | null = null,
    body: unknown = null,
  ): Promise<SubmitAnswer> {
    return this.idempotent.run<SubmitAnswer>({
      principal,
      endpoint: 'leads',
      key,
      body,
      leaseMs: this.config.submitAnswerTimeoutMs + 2000,
      run: (leadId) => this.submit(principal, request, correlationId, shown, leadId),
      record: (answer) => ({ status: answer.httpStatus, body: answer.body }),
      replay: (_leadId, recorded) => this.replay(principal, recorded),
    });
  }

  /** A decided submit answers its decision again; a PENDING one its decision now (the lead-status read). */
  private async replay(principal: Principal, recorded: RecordedAnswer): Promise<SubmitAnswer> {
    const body = recorded.body as SubmitAnswerBody;
    if (body.code !== 'PENDING') return { httpStatus: recorded.status as 200 | 202, body };
    try {
      const now = await this.leadStatus.run(principal, body.svc_lead_id);
      return { httpStatus: now.code === 'PENDING' ? 202 : 200, body: now };
    } catch (e) {
      // Not stored yet and not remembered (Redis lost the PENDING note): still the PENDING it was answered.
      if (e instanceof ApiError && e.httpStatus === 404) return { httpStatus: 202, body };
      throw e;
    }
  }

  /**
   * `shown`: the result as Redis holds it (read with the rate limit: its
   * search's affiliate, the entry's campaign and offer); PostgreSQL is asked
   * when Redis has no copy.
   */
  private async submit(
    principal: Principal,
    request: LeadsRequest,
    correlationId: string,
    shown: ShownResultRef | undefined,
    leadId: string,
  ): Promise<SubmitAnswer> {
    const dto = request.dto;
    assertAffiliate(principal, dto.svc_affiliate_id);
    const campaignId = dto.svc_campaign_id.toLowerCase();
    const campaign = await this.campaigns.find(campaignId, CAMPAIGN_STATUS_TTL_MS);
    if (!campaign || campaign.affiliateId !== principal.affiliateId) throw ApiError.forbidden();

    const common = {
      leadId,
      affiliateId: principal.affiliateId,
      apiKeyId: principal.keyId,
      campaignId,
      programId: dto.program_id ?? null,
      answers: request.answers,
      tcpaConsent: dto.tcpa_consent ?? null,
      consentButtonLabel: dto.consent_button_label ?? null,
      formCertUrl: dto.form_cert_url ?? null,
      universalLeadCert: dto.universal_lead_cert ?? null,
      isTest: dto.svc_is_test_lead === true,
      requestedAt: new Date().toISOString(),
    };
    let message: SubmitRequestedV1;
    let offerId: string;
    if (request.mode === 'result_submit') {
      const result = await this.shownResult(request.resultId, request.searchId, shown);
      if (!result || result.affiliateId !== principal.affiliateId) throw ApiError.of(REFUSAL.resultNotFound);
      if (result.campaignId !== campaignId) throw ApiError.forbidden(REFUSAL.resultCampaignMismatch);
      offerId = result.offerId;
      const fields = request.lead ? await this.seal(leadId, request.lead as Lead, {}, '') : null;
      message = {
        ...common,
        kind: 'result_submit',
        resultId: request.resultId.toLowerCase(),
        searchId: request.searchId,
        offerId: null,
        originLeadId: null,
        lead: fields?.lead ?? null,
        tracking: null,
        consumerIp: null,
        ipSource: null,
        contact: fields?.contact ?? null,
      };
    } else {
      const offer = await this.deps.call('postgres', () => this.catalog.offerForDirectPost(request.offerId, campaignId));
      if (!offer) throw ApiError.of(REFUSAL.offerNotFound);
      if (offer.source === 'partner') throw ApiError.of(REFUSAL.partnerOfferPosted);
      if (!offer.onCampaign) throw ApiError.forbidden();
      offerId = offer.id;
      const originLeadId = dto.svc_lead_id?.toLowerCase() ?? null;
      if (originLeadId) await this.assertOrigin(originLeadId, principal);
      const sealed = await this.seal(leadId, request.lead as Lead, request.tracking.values, request.tracking.ip!);
      message = {
        ...common,
        kind: 'direct_post',
        resultId: null,
        searchId: null,
        offerId: offer.id,
        originLeadId,
        lead: sealed.lead,
        tracking: sealed.tracking,
        consumerIp: sealed.consumerIp,
        ipSource: 'consumer',
        contact: sealed.contact,
      };
    }

    const answer = await this.decide(message, offerId, correlationId);
    if (answer.kind === 'decision' && answer.decision.code === 'PENDING') {
      const { leadId, affiliateId, kind, resultId, searchId, isTest } = message;
      await this.pendingLeads.remember({ leadId, affiliateId, kind, offerId, resultId, searchId, isTest });
    }
    if (answer.kind === 'refused') {
      const r = answer.refusal;
      throw new ApiError(r.httpStatus, r.code, r.reason, {
        ...(r.error ? { error: r.error } : {}),
        ...(r.field ? { field: r.field } : {}),
      });
    }
    submits.inc({ code: answer.decision.code });
    return submitAnswer(answer.decision);
  }

  /**
   * The submit's contact data sealed under the lead's own data key (from the
   * sealer's pool: no round trip), so that no message and no row holds it in
   * clear (docs/security.md, Encryption at rest); checks opens it to decide.
   * Fields without contact data (a result submit's answers to the form) are
   * sent as they are.
   */
  private async seal(
    leadId: string,
    lead: Lead,
    tracking: Record<string, string>,
    consumerIp: string,
  ): Promise<{ lead: Lead; tracking: Record<string, string>; consumerIp: string; contact: SealedContact | null }> {
    const record: StoredContact = { lead, tracking, consumerIp, ipSource: 'consumer' };
    if (!holdsContact(record)) return { lead, tracking, consumerIp, contact: null };
    const { readable, contact } = await this.deps.call('postgres', () => this.sealer.sealRecord(leadId, record, new Date()));
    return { lead: readable.lead, tracking: readable.tracking, consumerIp: readable.consumerIp, contact };
  }

  /** The result a submit names, with its search's affiliate: from Redis as read with the rate limit, else PostgreSQL. */
  private async shownResult(resultId: string, searchId: string, shown: ShownResultRef | undefined): Promise<ShownResultRef | undefined> {
    if (shown) return shown;
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(resultId)) return undefined;
    const row = await this.deps.call('postgres', () => this.searches.resultOwner(resultId.toLowerCase(), searchId));
    return row && row.searchId === searchId
      ? { affiliateId: row.affiliateId, campaignId: row.campaignId, offerId: row.offerId }
      : undefined;
  }

  /** A direct-post retry names the caller's earlier direct post. */
  private async assertOrigin(originLeadId: string, principal: Principal): Promise<void> {
    const origin = await this.deps.call('postgres', () => this.leads.find(originLeadId));
    if (!origin && (await this.pendingLeads.find(originLeadId, principal.affiliateId))?.kind === 'direct_post') {
      // Answered PENDING and not yet stored: the retry is recognised once it is (seconds, or after an
      // operator's dead-letter replay). Retryable, so it is not mistaken for an unknown lead.
      throw ApiError.of(REFUSAL.leadPending);
    }
    if (!origin || origin.affiliateId !== principal.affiliateId || origin.kind !== 'direct_post')
      throw ApiError.of(REFUSAL.originLeadNotFound);
  }

  /**
   * The decision. A submit is refused (503) while a dependency is known to be
   * down, and when the broker does not take it. Once the broker has taken it,
   * it is durable and will be decided, so the answer is never a 503 that
   * would invite a second submit: when the decision cannot come in time (a
   * slow school, the reply's connection lost, or a dependency going down
   * meanwhile, which pauses the workers until it is back) it is PENDING (202),
   * and the lead-status read shows the decision later.
   */
  private async decide(message: SubmitRequestedV1, offerId: string, correlationId: string): Promise<SubmitAnswerV1> {
    const pending = (): SubmitAnswerV1 => ({
      kind: 'decision',
      decision: pendingDecision(message.leadId, offerId, message.resultId, message.searchId, message.isTest),
    });
    this.deps.assertUp(...DEPENDENCY_NAMES);
    let settled = false;
    let down: ReturnType<Dependencies['onDown']> | undefined;
    let onSent = () => undefined as void;
    const pendingOnceDown = new Promise<SubmitAnswerV1>((resolve) => {
      onSent = () => {
        if (settled) return;
        down = this.deps.onDown(DEPENDENCY_NAMES);
        void down.promise.then(() => resolve(pending()));
      };
    });
    try {
      const decision = this.amqp.request<SubmitRequestedV1, SubmitAnswerV1>(MESSAGE_TYPES.SubmitRequested, message, {
        messageId: `submit:${message.leadId}`,
        correlationId,
        timeoutMs: this.config.submitAnswerTimeoutMs,
        onSent,
      });
      return await Promise.race([decision, pendingOnceDown]);
    } catch (e) {
      // The request is durable in the queue (the broker confirmed it): it will be decided, and the
      // lead-status read shows it. Also when the reply's connection dropped after the publish: a 503
      // would have the affiliate retry a submit that is being decided (and may be sold).
      if (e instanceof RequestTimeoutError || e instanceof ReplyLostError) return pending();
      // A worker gave up after its retries: the submit waits in a dead-letter queue for an operator's replay
      // (docs/runbooks/dead-letters.md), which decides it under this same svc_lead_id. So it is pending, as
      // the contract says of a decision that comes later, and never a 500.
      if (e instanceof RemoteHandlerError) {
        dead.inc();
        return pending();
      }
      if (e instanceof BrokerUnavailableError) throw new DependencyFailure('rabbitmq', e);
      throw e;
    } finally {
      settled = true;
      down?.cancel();
    }
  }
}
