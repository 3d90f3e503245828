import { Body, Controller, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { Endpoint } from '../auth/endpoint.decorator';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { OptOutAnswerSchema } from '../openapi/answer-schemas';
import { AffiliateApi, ContractAnswers } from '../openapi/contract-answers';
import { OptOutRequestDto } from './opt-out-request.dto';
import { OptOutAnswer, RecordOptOut } from './record-opt-out.usecase';

export const OPT_OUTS_PATH = '/api/v1/engine/opt-outs';
export const OPT_OUTS_BODY_LIMIT = 16 * 1024;

@Controller('api/v1/engine')
@AffiliateApi()
export class OptOutsHandler {
  constructor(private readonly recordOptOut: RecordOptOut) {}

  /** An additive endpoint (docs/opt-outs.md): a consumer asked the affiliate to stop. */
  @Post('opt-outs')
  @Endpoint('opt-outs')
  @UseGuards(ApiKeyGuard, RateLimitGuard)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'optOut',
    summary: 'Record that a consumer asked to stop: no affiliate sells them again, and their buyers are told',
    description:
      'Server to server only. From the answer on, searches of the person show no results and their submits and direct posts are refused ' +
      '`NOT_ELIGIBLE`, whichever affiliate sends them; every school and partner network that accepted a lead of theirs gets a revocation ' +
      'notice within ten business days. The answer is the same whatever the service knew of the person. Body at most 16 KB.',
  })
  @ApiBody({ type: OptOutRequestDto })
  @ContractAnswers('opt-outs', { type: OptOutAnswerSchema, ok: '`code` `OK`, `status` `accepted`, `opt_out_id`: the request is stored.' })
  record(@Req() req: FastifyRequest, @Body() body: unknown): Promise<OptOutAnswer> {
    return this.recordOptOut.run(req.principal!, body);
  }
}
