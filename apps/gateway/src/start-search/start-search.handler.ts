import { Body, Controller, Header, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { Endpoint } from '../auth/endpoint.decorator';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { SearchAnswerSchema } from '../openapi/answer-schemas';
import { AffiliateApi, ContractAnswers } from '../openapi/contract-answers';
import { IdempotencyKeyHeader } from '../openapi/idempotency-header';
import { parseSearchRequest } from './parse-search-request';
import { SearchRequestDto } from './search-request.dto';
import { idempotencyKeyOf } from '../idempotency/idempotency-key.header';
import { StartSearch } from './start-search.usecase';

@Controller('api/v1/engine')
@UseGuards(ApiKeyGuard, RateLimitGuard)
@AffiliateApi()
export class StartSearchHandler {
  constructor(private readonly startSearch: StartSearch) {}

  /** Validates the body; the use case authorizes, asks the search-orchestrator and answers its body. */
  @Post('search')
  @Endpoint('search')
  @HttpCode(200)
  @Header('Content-Type', 'application/json; charset=utf-8')
  @IdempotencyKeyHeader()
  @ApiOperation({
    operationId: 'search',
    summary: 'Search all active offers on a campaign for one lead',
    description: 'Stores the lead, runs duplicate, cap, eligibility and requirement checks, and answers with the first results.',
  })
  @ApiBody({ type: SearchRequestDto })
  @ContractAnswers('search', {
    type: SearchAnswerSchema,
    ok: 'The answer envelope with the first results, `code` `OK`, `status` `accepted`.',
  })
  search(@Req() req: FastifyRequest, @Body() body: unknown): Promise<Buffer> {
    const request = parseSearchRequest(body);
    return this.startSearch.run(req.principal!, request, String(req.id), idempotencyKeyOf(req), body);
  }
}
