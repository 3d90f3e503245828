import { Body, Controller, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readShownResult, ShownResultRef } from '@lr/search-state';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { Endpoint } from '../auth/endpoint.decorator';
import { RateLimitGuard, RateLimitReadsAlong, ReadAlong, readAlongValue } from '../auth/rate-limit.guard';
import { SubmitAnswerSchema } from '../openapi/answer-schemas';
import { AffiliateApi, ContractAnswers } from '../openapi/contract-answers';
import { IdempotencyKeyHeader } from '../openapi/idempotency-header';
import { LeadsRequestDto } from './leads-request.dto';
import { parseLeadsRequest } from './parse-leads-request';
import { idempotencyKeyOf } from '../idempotency/idempotency-key.header';
import { SubmitLead } from './submit-lead.usecase';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A result submit's result rides on the rate limit's Redis round trip (its search's meta and the entry). */
const readSubmittedResult: ReadAlong<ShownResultRef | undefined> = (req, redis) => {
  const body = req.body as { svc_result_id?: unknown; search_lead_id?: unknown } | undefined;
  const resultId = body?.svc_result_id;
  const searchId = body?.search_lead_id;
  if (typeof resultId !== 'string' || typeof searchId !== 'string' || !UUID.test(resultId) || !UUID.test(searchId)) return undefined;
  return readShownResult(redis, searchId.toLowerCase(), resultId.toLowerCase());
};

@Controller('api/v1/engine')
@UseGuards(ApiKeyGuard, RateLimitGuard)
@AffiliateApi()
export class SubmitLeadHandler {
  constructor(private readonly submitLead: SubmitLead) {}

  @Post('leads')
  @Endpoint('leads')
  @RateLimitReadsAlong(readSubmittedResult)
  @IdempotencyKeyHeader()
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
    const request = parseLeadsRequest(body);
    const { httpStatus, body: out } = await this.submitLead.run(
      req.principal!,
      request,
      String(req.id),
      readAlongValue<ShownResultRef>(req),
      idempotencyKeyOf(req),
      body,
    );
    void reply.status(httpStatus);
    return out;
  }
}
