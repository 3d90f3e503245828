import { randomUUID } from 'node:crypto';
import { Body, Controller, Header, HttpCode, Inject, Post, Req, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { MESSAGE_TYPES, SearchAnswerV1, SearchRequestedV1 } from '@lr/contracts';
import { AmqpConnection, RequestTimeoutError } from '@lr/messaging';
import { counter } from '@lr/observability';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { Endpoint } from '../auth/endpoint.decorator';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { DEPENDENCY_NAMES, Dependencies, DependencyFailure } from '../http/dependencies';
import { SearchAnswerSchema } from '../openapi/answer-schemas';
import { AffiliateApi, ContractAnswers } from '../openapi/contract-answers';
import { CampaignOwners } from '../results/campaign-owners';
import { pollBody, searchEnvelope } from '../results/search-envelope';
import { SearchStore } from '../results/search-store';
import { assertActiveCampaign, assertAffiliate } from './campaign-access';
import { parseSearchRequest } from './parse-search-request';
import { SearchRequestDto } from './search-request.dto';

const searches = counter('gateway_searches_total', 'Searches answered 200, by test flag', ['test']);

@Controller('api/v1/engine')
@UseGuards(ApiKeyGuard, RateLimitGuard)
@AffiliateApi()
export class SearchController {
  constructor(
    private readonly campaigns: CampaignOwners,
    private readonly store: SearchStore,
    private readonly amqp: AmqpConnection,
    private readonly deps: Dependencies,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Validates, authorizes, then hands the search to the search-orchestrator over
   * RabbitMQ and answers with its first results (request/reply with a deadline).
   * A search needs all three dependencies (the orchestrator stores it in
   * PostgreSQL and publishes it to Redis), even when the gateway's own part is
   * served from memory: it is refused at once while one is known to be down,
   * and abandoned (503) as soon as one goes down while it waits.
   */
  @Post('search')
  @Endpoint('search')
  @HttpCode(200)
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiOperation({
    operationId: 'search',
    summary: 'Search all active offers on a campaign for one lead',
    description: 'Stores the lead, runs duplicate, cap, eligibility and requirement checks, and answers with the first results.',
  })
  @ApiBody({ type: SearchRequestDto })
  @ContractAnswers('search', { type: SearchAnswerSchema, ok: 'The answer envelope with the first results, `code` `OK`, `status` `accepted`.' })
  async search(@Req() req: FastifyRequest, @Body() body: unknown) {
    const principal = req.principal!;
    const request = parseSearchRequest(body);
    assertAffiliate(principal, request.affiliateId);
    await assertActiveCampaign(this.campaigns, principal, request.campaignId);

    const searchId = randomUUID();
    const timeoutMs = this.config.search.replyTimeoutMs;
    const now = Date.now();
    const message: SearchRequestedV1 = {
      searchId,
      affiliateId: principal.affiliateId,
      campaignId: request.campaignId,
      apiKeyId: principal.keyId,
      isTest: request.isTest,
      lead: request.lead,
      tracking: request.tracking.values,
      consumerIp: request.tracking.ip!,
      ipSource: 'consumer',
      tcpaConsent: request.tcpaConsent,
      formCertUrl: request.formCertUrl,
      universalLeadCert: request.universalLeadCert,
      requestedAt: new Date(now).toISOString(),
      replyBy: new Date(now + timeoutMs).toISOString(),
      readsOffersFromState: true,
    };
    this.deps.assertUp(...DEPENDENCY_NAMES);
    let answer: SearchAnswerV1;
    const down = this.deps.onDown(DEPENDENCY_NAMES);
    try {
      const reply = this.deps.call(
        'rabbitmq',
        () =>
          this.amqp.request<SearchRequestedV1, SearchAnswerV1>(MESSAGE_TYPES.SearchRequested, message, {
            messageId: searchId,
            correlationId: String(req.id),
            timeoutMs,
          }),
        timeoutMs + 500,
      );
      const lost = down.promise.then((name) => Promise.reject(new DependencyFailure(name, new Error(`${name} went down while the search waited`))));
      answer = await Promise.race([reply, lost]);
    } catch (e) {
      const cause = e instanceof DependencyFailure ? e.causeError : e;
      if (cause instanceof RequestTimeoutError) throw new DependencyFailure('search-orchestrator', cause);
      throw e;
    } finally {
      down.cancel();
    }
    searches.inc({ test: String(request.isTest) });
    if (answer.offers) return JSON.stringify(searchEnvelope({ ...answer, offers: answer.offers }));
    // The orchestrator wrote the first results to Redis before it replied: read them there, joined as stored (as a poll
    // does). The state may already be newer (a partner answered meanwhile): the answer is then the list so far.
    const view = await this.store.read(searchId);
    // Stored before the reply, so only a fault of PostgreSQL's (or a bug) gets here.
    if (!view) throw new DependencyFailure('postgres', new Error(`search ${searchId} was answered but is not stored`));
    return pollBody(view).body;
  }
}
