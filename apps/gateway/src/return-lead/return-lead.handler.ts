import { Body, Controller, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { ReturnAnswerBody } from '@lr/domain';
import { BuyerKeyGuard } from '../auth/api-key.guard';
import { Endpoint } from '../auth/endpoint.decorator';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ReturnAnswerSchema } from '../openapi/answer-schemas';
import { BuyerApi, ContractAnswers } from '../openapi/contract-answers';
import { ReturnLead } from './return-lead.usecase';
import { ReturnRequestDto } from './return-request.dto';

export const BUYER_RETURNS_PATH = '/api/v1/buyer/returns';
export const BUYER_RETURNS_BODY_LIMIT = 16 * 1024;

@Controller('api/v1/buyer')
@BuyerApi()
export class ReturnLeadHandler {
  constructor(private readonly returnLead: ReturnLead) {}

  /** The buyer API (docs/returns.md): a school's key returns a lead the school bought, with one of the offer's reason codes. */
  @Post('returns')
  @Endpoint('returns')
  @UseGuards(BuyerKeyGuard, RateLimitGuard)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'returnLead',
    summary: 'Return a lead the school bought, with a reason code',
    description:
      'With a school’s API key. Within the offer’s return window, one of its reason codes; a lead is returned once. ' +
      'The affiliate’s payout and the school’s price for the lead are reversed. Body at most 16 KB.',
  })
  @ApiBody({ type: ReturnRequestDto })
  @ContractAnswers('returns', {
    type: ReturnAnswerSchema,
    ok: '`code` `OK`, `status` `accepted`, reason `Lead returned`, and the return as booked.',
  })
  returnLeadOf(@Req() req: FastifyRequest, @Body() body: unknown): Promise<ReturnAnswerBody> {
    return this.returnLead.run(req.buyer!, body);
  }
}
