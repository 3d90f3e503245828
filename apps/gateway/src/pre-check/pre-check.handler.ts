import { Body, Controller, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DUPE_CHECK_NOT_AVAILABLE } from '@lr/domain';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { Endpoint } from '../auth/endpoint.decorator';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { DupeCheckAnswerSchema } from '../openapi/answer-schemas';
import { AffiliateApi, ContractAnswers } from '../openapi/contract-answers';
import { DupeCheckRequestDto } from './dupe-check-request.dto';
import { DupeCheckAnswer, PreCheck } from './pre-check.usecase';

export const DUPE_CHECK_PATH = '/api/v1/engine/dupe-check';
export const DUPE_CHECK_BODY_LIMIT = 16 * 1024;

@Controller('api/v1/engine')
@AffiliateApi()
export class PreCheckHandler {
  constructor(private readonly preCheck: PreCheck) {}

  /**
   * The duplicate pre-check (contract: POST /api/v1/engine/dupe-check; policy
   * in docs/duplicates.md). With `offer_id` it answers exactly the submit-time
   * rule for that offer; without it, whether a submit to some offer on the
   * caller's campaigns would very likely be refused as DUPLICATE.
   */
  @Post('dupe-check')
  @Endpoint('dupe-check')
  @UseGuards(ApiKeyGuard, RateLimitGuard)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'dupeCheck',
    summary: 'Ask whether a lead would likely be refused as a duplicate',
    description:
      'Optional, server to server only (no CORS). Answers only `duplicate_likely`: no score, no matched fields. ' +
      'Submit always runs the full duplicate check regardless. Body at most 16 KB.',
  })
  @ApiBody({ type: DupeCheckRequestDto })
  @ContractAnswers('dupe-check', { type: DupeCheckAnswerSchema, ok: '`code` `OK`, `status` `accepted`, `duplicate_likely`.' })
  async check(
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() body: unknown,
  ): Promise<DupeCheckAnswer | { error: string }> {
    const answer = await this.preCheck.run(req.principal!, body);
    if ('error' in answer) void reply.status(DUPE_CHECK_NOT_AVAILABLE.http);
    return answer;
  }
}
