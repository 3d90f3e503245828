import { Controller, Get, Header, Param, Req, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { isUUID } from 'class-validator';
import { searchStateKey } from '@lr/contracts';
import { REFUSAL } from '@lr/domain';
import { counter } from '@lr/observability';
import { CachedSearch, readSearchState } from '@lr/redis';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { Endpoint } from '../auth/endpoint.decorator';
import { RateLimitGuard, RateLimitReadsAlong, ReadAlong, readAlongValue } from '../auth/rate-limit.guard';
import { ApiError } from '../http/api-error';
import { SearchAnswerSchema } from '../openapi/answer-schemas';
import { AffiliateApi, ContractAnswers } from '../openapi/contract-answers';
import { pollBody } from './search-envelope';
import { CampaignOwners } from '../auth/campaign-owners';
import { SearchStore } from './search-store';

const searchNotFound = () => ApiError.of(REFUSAL.searchNotFound);
/** A poll's Redis read rides on the rate limit's round trip (one round trip per poll, not two). */
const readPolledSearch: ReadAlong<CachedSearch | undefined> = (req, redis) => {
  const id = (req.params as { svc_lead_id?: string }).svc_lead_id;
  return id && isUUID(id) ? readSearchState(redis, searchStateKey(id.toLowerCase())) : undefined;
};
const polls = counter('gateway_polls_total', 'Polls answered 200, by done', ['done']);

@Controller('api/v1/engine')
@UseGuards(ApiKeyGuard, RateLimitGuard)
@AffiliateApi()
export class PollResultsHandler {
  constructor(
    private readonly store: SearchStore,
    private readonly owners: CampaignOwners,
  ) {}

  /**
   * Every poll returns the whole list so far. A search of another affiliate is
   * as unknown as a missing one (404); the caller's own search whose campaign
   * has since been given to another affiliate is 403 (contract: campaign not
   * the caller's).
   */
  @Get('results/:svc_lead_id')
  @Endpoint('results')
  @RateLimitReadsAlong(readPolledSearch)
  @Header('Content-Type', 'application/json; charset=utf-8')
  @ApiOperation({
    operationId: 'pollResults',
    summary: 'Poll the results of a search',
    description:
      'Returns all results of the search so far, not only new ones. Poll until `processing_done` is true, no faster than `poll_after_ms`.',
  })
  @ApiParam({ name: 'svc_lead_id', format: 'uuid', description: 'The search id (`svc_lead_id` of the search answer).' })
  @ContractAnswers('results', {
    type: SearchAnswerSchema,
    ok: 'The search answer envelope; `poll_after_ms` only while `processing_done` is false.',
  })
  async results(@Req() req: FastifyRequest, @Param('svc_lead_id') svcLeadId: string) {
    if (!isUUID(svcLeadId)) throw searchNotFound();
    const view = await this.store.complete(svcLeadId.toLowerCase(), readAlongValue<CachedSearch>(req));
    if (!view || view.meta.affiliateId !== req.principal!.affiliateId) throw searchNotFound();
    if ((await this.owners.ownerOf(view.meta.campaignId)) !== req.principal!.affiliateId) {
      throw ApiError.forbidden(REFUSAL.campaignNotOwned);
    }
    const { body, processingDone } = pollBody(view);
    polls.inc({ done: String(processingDone) });
    return body;
  }
}
