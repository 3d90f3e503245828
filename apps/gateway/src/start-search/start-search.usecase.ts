import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { MESSAGE_TYPES, SearchRequestedV1 } from '@lr/contracts';
import { AmqpConnection, RawReply, RemoteHandlerError, RequestTimeoutError } from '@lr/messaging';
import { deriveSearch, Lead, testMode } from '@lr/domain';
import { counter } from '@lr/observability';
import { ContactSealer } from '@lr/persistence';
import { searchAnswerBody, SearchStateReader } from '@lr/search-state';
import { assertActiveCampaign, assertAffiliate } from '../auth/campaign-access';
import { CampaignOwners } from '../auth/campaign-owners';
import type { Principal } from '../auth/principal';
import { ApiError } from '../http/api-error';
import { DEPENDENCY_NAMES, Dependencies, DependencyFailure } from '../http/dependencies';
import { IdempotentRequests } from '../idempotency/idempotent-requests';
import type { SearchRequest } from './parse-search-request';

const searches = counter('gateway_searches_total', 'Searches answered 200, by test flag', ['test']);

/**
 * A search at the front door (affiliate-api.md, POST /api/v1/engine/search):
 * the affiliate and the campaign the caller's, then the search goes to the
 * search-orchestrator over RabbitMQ and its answer (the HTTP body) comes back
 * within SEARCH_REPLY_TIMEOUT_MS. A search needs all three dependencies (the
 * orchestrator stores it in PostgreSQL and publishes it to Redis), even when
 * the gateway's own part is served from memory: it is refused at once while
 * one is known to be down, and abandoned (503) as soon as one goes down while
 * it waits. With an `Idempotency-Key`, a retry answers the search the key
 * started, as it is now (docs/idempotency.md).
 */
@Injectable()
export class StartSearch {
  constructor(
    private readonly campaigns: CampaignOwners,
    private readonly amqp: AmqpConnection,
    private readonly deps: Dependencies,
    private readonly idempotent: IdempotentRequests,
    private readonly searches: SearchStateReader,
    private readonly sealer: ContactSealer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `key`: the request's `Idempotency-Key` (null without one); `body`: the request body as sent, which the key names. */
  async run(
    principal: Principal,
    request: SearchRequest,
    correlationId: string,
    key: string | null = null,
    body: unknown = null,
  ): Promise<Buffer> {
    assertAffiliate(principal, request.affiliateId);
    await assertActiveCampaign(this.campaigns, principal, request.campaignId);
    return this.idempotent.run({
      principal,
      endpoint: 'search',
      key,
      body,
      leaseMs: this.config.search.replyTimeoutMs + 2000,
      run: (searchId) => this.start(principal, request, correlationId, searchId),
      record: () => ({ status: 200, body: null }),
      replay: (searchId) => this.current(searchId),
    });
  }

  /** A search the key started and answered: its answer as a poll gives it now (the same envelope). */
  private async current(searchId: string): Promise<Buffer> {
    const view = await this.searches.complete(searchId, undefined);
    // Stored before it was answered; gone only if deleted since: nothing to answer but "try again".
    if (!view) throw ApiError.unavailable();
    return searchAnswerBody(view.meta, view.entries).body;
  }

  private async start(principal: Principal, request: SearchRequest, correlationId: string, searchId: string): Promise<Buffer> {
    const timeoutMs = this.config.search.replyTimeoutMs;
    const now = Date.now();
    const today = new Date(now);
    this.deps.assertUp(...DEPENDENCY_NAMES);
    // The contact data is sealed here, under the search's own data key, and never opened by the orchestrator:
    // what its rules and the partners need of it is derived first (docs/security.md, Encryption at rest).
    const lead = request.lead as Lead;
    const derived = deriveSearch(this.config.personKeySecret, lead, testMode(request.isTest), today);
    const { readable, contact } = await this.deps.call('postgres', () =>
      this.sealer.sealRecord(
        searchId,
        { lead, tracking: request.tracking.values, consumerIp: request.tracking.ip!, ipSource: 'consumer' },
        today,
      ),
    );
    const message: SearchRequestedV1 = {
      searchId,
      affiliateId: principal.affiliateId,
      campaignId: request.campaignId,
      apiKeyId: principal.keyId,
      isTest: request.isTest,
      lead: readable.lead,
      tracking: readable.tracking,
      consumerIp: readable.consumerIp,
      ipSource: 'consumer',
      contact,
      derived,
      tcpaConsent: request.tcpaConsent,
      formCertUrl: request.formCertUrl,
      universalLeadCert: request.universalLeadCert,
      requestedAt: new Date(now).toISOString(),
      replyBy: new Date(now + timeoutMs).toISOString(),
    };
    let answer: RawReply;
    const down = this.deps.onDown(DEPENDENCY_NAMES);
    try {
      const reply = this.deps.call(
        'rabbitmq',
        () =>
          this.amqp.request<SearchRequestedV1, RawReply>(MESSAGE_TYPES.SearchRequested, message, {
            messageId: searchId,
            correlationId,
            timeoutMs,
          }),
        timeoutMs + 500,
      );
      const lost = down.promise.then((name) =>
        Promise.reject(new DependencyFailure(name, new Error(`${name} went down while the search waited`))),
      );
      answer = await Promise.race([reply, lost]);
    } catch (e) {
      const cause = e instanceof DependencyFailure ? e.causeError : e;
      // No answer in time, or the orchestrator gave the request up (dead-lettered): no answer the affiliate can
      // use, so it searches again (503, retryable).
      if (cause instanceof RequestTimeoutError || cause instanceof RemoteHandlerError)
        throw new DependencyFailure('search-orchestrator', cause);
      throw e;
    } finally {
      down.cancel();
    }
    // The orchestrator answers the search's HTTP body (libs/search-state searchAnswerBody), sent on as it is.
    if (!(answer instanceof RawReply))
      throw new DependencyFailure('search-orchestrator', new Error('the search answer is not the answer body'));
    searches.inc({ test: String(request.isTest) });
    return answer.body;
  }
}
