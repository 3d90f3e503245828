import { randomUUID } from 'node:crypto';
import { Body, Controller, Get, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { MESSAGE_TYPES, SubmitAnswerV1, SubmitRequestedV1 } from '@lr/contracts';
import { AmqpConnection, BrokerUnavailableError, RemoteHandlerError, ReplyLostError, RequestTimeoutError } from '@lr/messaging';
import { counter } from '@lr/observability';
import { findCampaignForAffiliate, findLead, findOfferForDirectPost, findResultForSubmit, leadDecision } from '@lr/persistence';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { Endpoint } from '../auth/endpoint.decorator';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiError } from '../http/api-error';
import { DEPENDENCY_NAMES, Dependencies, DependencyFailure } from '../http/dependencies';
import { SubmitAnswerSchema } from '../openapi/answer-schemas';
import { AffiliateApi, ContractAnswers } from '../openapi/contract-answers';
import { assertAffiliate } from '../search/campaign-access';
import { LeadsRequestDto } from './leads-request.dto';
import { parseLeadsRequest } from './parse-leads-request';
import { PendingLeads } from './pending-leads';
import { pendingDecision, submitAnswer } from './submit-answer';

const dead = counter('gateway_submits_dead_lettered_total', 'Submits answered PENDING because delivery dead-lettered them (an operator replays them)');
const submits = counter('gateway_submits_total', 'Leads endpoint answers with a decision, by code', ['code']);

@Controller('api/v1/engine')
@UseGuards(ApiKeyGuard, RateLimitGuard)
@AffiliateApi()
export class LeadsController {
  constructor(
    private readonly ds: DataSource,
    private readonly amqp: AmqpConnection,
    private readonly deps: Dependencies,
    private readonly pendingLeads: PendingLeads,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Result submits and direct posts. The front door (validation, affiliate,
   * campaign, result or offer ownership) answers the contract's HTTP errors;
   * the decision is delivery's, over RabbitMQ (request/reply). When it takes
   * longer than SUBMIT_ANSWER_TIMEOUT_MS (a slow school) the answer is PENDING
   * (202) and the decision completes anyway; GET leads/{svc_lead_id} reads it.
   */
  @Post('leads')
  @Endpoint('leads')
  @ApiOperation({
    operationId: 'submitLead',
    summary: 'Submit a search result, or post a lead directly to one offer',
    description:
      'Result submit: `svc_result_id` and `search_lead_id` (the lead comes from the search). Direct post: `svc_offer_id`, `lead` and `tracking`. ' +
      'Checks run again in full before the buyer receives the lead. Clients read `status` and `code`, not the HTTP status.',
  })
  @ApiBody({ type: LeadsRequestDto })
  @ContractAnswers('leads', {
    type: SubmitAnswerSchema,
    ok: 'A decision (accepted or refused by the service or the buyer), including refusals for a missing or invalid answer or consent (`status` `invalid`).',
    accepted: '`PENDING`: the buyer has not answered in time; not final. `GET /api/v1/engine/leads/{svc_lead_id}` returns the decision.',
  })
  async submit(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Body() body: unknown) {
    const principal = req.principal!;
    const request = parseLeadsRequest(body);
    assertAffiliate(principal, request.dto.svc_affiliate_id);
    const campaignId = request.dto.svc_campaign_id.toLowerCase();
    const campaign = await this.deps.call('postgres', () => findCampaignForAffiliate(this.ds, campaignId));
    if (!campaign || campaign.affiliateId !== principal.affiliateId) throw ApiError.forbidden();

    const leadId = randomUUID();
    const dto = request.dto;
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
      const result = isUUID(request.resultId)
        ? await this.deps.call('postgres', () => findResultForSubmit(this.ds, request.resultId.toLowerCase()))
        : undefined;
      if (!result || result.affiliateId !== principal.affiliateId || result.searchId !== request.searchId) {
        throw ApiError.notFound(404, 'Search result not found', { error: 'search_result_not_found' });
      }
      if (result.campaignId !== campaignId) throw ApiError.forbidden('Not permitted', { error: 'result_campaign_mismatch' });
      offerId = result.offerId;
      message = {
        ...common,
        kind: 'result_submit',
        resultId: result.id,
        searchId: result.searchId,
        offerId: null,
        originLeadId: null,
        lead: request.lead ?? null,
        tracking: null,
        consumerIp: null,
        ipSource: null,
      };
    } else {
      const offer = await this.deps.call('postgres', () => findOfferForDirectPost(this.ds, request.offerId, campaignId));
      if (!offer) throw ApiError.notFound(404, 'Offer not found', { field: 'svc_offer_id' });
      if (offer.source === 'partner') {
        throw ApiError.invalidField('svc_offer_id', 'svc_offer_id is a partner offer: submit it from a search result');
      }
      if (!offer.onCampaign) throw ApiError.forbidden();
      offerId = offer.id;
      const originLeadId = dto.svc_lead_id?.toLowerCase() ?? null;
      if (originLeadId) {
        const origin = await this.deps.call('postgres', () => findLead(this.ds, originLeadId));
        if (!origin && (await this.pendingLeads.find(originLeadId, principal.affiliateId))?.kind === 'direct_post') {
          // Answered PENDING and not yet stored by delivery: the retry is recognised once it is (seconds,
          // or after an operator's dead-letter replay). Retryable, so it is not mistaken for an unknown lead.
          throw new ApiError(
            503,
            'UNAVAILABLE',
            'The lead named by svc_lead_id is still pending; retry shortly',
            { retryable: true, retry_after_seconds: 2, field: 'svc_lead_id', error: 'lead_pending' },
            'failed',
            { 'Retry-After': '2' },
          );
        }
        if (!origin || origin.affiliateId !== principal.affiliateId || origin.kind !== 'direct_post') {
          throw ApiError.notFound(404, 'Lead not found', { field: 'svc_lead_id' });
        }
      }
      message = {
        ...common,
        kind: 'direct_post',
        resultId: null,
        searchId: null,
        offerId: offer.id,
        originLeadId,
        lead: request.lead,
        tracking: request.tracking.values,
        consumerIp: request.tracking.ip!,
        ipSource: 'consumer',
      };
    }

    const answer = await this.decide(message, offerId, String(req.id));
    if (answer.kind === 'decision' && answer.decision.code === 'PENDING') {
      const { leadId: id, affiliateId, kind, resultId, searchId, isTest } = message;
      await this.pendingLeads.remember({ leadId: id, affiliateId, kind, offerId, resultId, searchId, isTest });
    }
    if (answer.kind === 'refused') {
      const r = answer.refusal;
      throw new ApiError(r.httpStatus, r.code, r.reason, r.error ? { error: r.error } : {});
    }
    const { httpStatus, body: out } = submitAnswer(answer.decision);
    submits.inc({ code: answer.decision.code });
    void reply.status(httpStatus);
    return out;
  }

  /** The current decision of a submit, in the submit answer's shape (an addition to the contract). */
  @Get('leads/:svc_lead_id')
  @Endpoint('leads')
  @ApiOperation({
    operationId: 'getLeadStatus',
    summary: 'Read the current decision of a submit',
    description: 'An addition to the contract: the submit answer of a lead now, e.g. after a `PENDING`. Counts toward the leads endpoint’s limit.',
  })
  @ApiParam({ name: 'svc_lead_id', format: 'uuid', description: 'The `svc_lead_id` of a submit answer (not the search id).' })
  @ContractAnswers('lead-status', { type: SubmitAnswerSchema, ok: 'The submit answer as it stands.' })
  async status(@Req() req: FastifyRequest, @Param('svc_lead_id') id: string) {
    const principal = req.principal!;
    const lead = isUUID(id)
      ? await this.deps.call('postgres', () => findLead(this.ds, id.toLowerCase()))
      : null;
    if (lead && lead.affiliateId === principal.affiliateId) return submitAnswer(leadDecision(lead)).body;
    // Answered PENDING, and delivery has not stored it yet: it is pending, not unknown.
    const pending = !lead && isUUID(id) ? await this.pendingLeads.find(id.toLowerCase(), principal.affiliateId) : undefined;
    if (pending) return submitAnswer(pendingDecision(pending.leadId, pending.offerId, pending.resultId, pending.searchId, pending.isTest)).body;
    throw ApiError.notFound(404, 'Lead not found');
  }

  /**
   * Delivery's decision. A submit is refused (503) while a dependency is known
   * to be down, and when the broker does not take it. Once the broker has taken
   * it, it is durable and will be decided, so the answer is never a 503 that
   * would invite a second submit: when the decision cannot come in time (a slow
   * school, the reply's connection lost, or a dependency going down meanwhile,
   * which pauses delivery until it is back) it is PENDING (202), and the
   * lead-status read shows the decision later.
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
      // Delivery gave up after its retries: the submit waits in its dead-letter queue for an operator's
      // replay (docs/runbooks/dead-letters.md), which decides it under this same svc_lead_id. So it is
      // pending, as the contract says of a decision that comes later, and never a 500.
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
