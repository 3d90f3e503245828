import { Controller, Get, Param, Req, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { Endpoint } from '../auth/endpoint.decorator';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { LeadStatusAnswerSchema } from '../openapi/answer-schemas';
import { AffiliateApi, ContractAnswers } from '../openapi/contract-answers';
import { LeadStatus } from './lead-status.usecase';

@Controller('api/v1/engine')
@UseGuards(ApiKeyGuard, RateLimitGuard)
@AffiliateApi()
export class LeadStatusHandler {
  constructor(private readonly leadStatus: LeadStatus) {}

  @Get('leads/:svc_lead_id')
  @Endpoint('leads')
  @ApiOperation({
    operationId: 'getLeadStatus',
    summary: 'Read the current decision of a submit',
    description:
      'An addition to the contract: the submit answer of a lead now, e.g. after a `PENDING`, and `returned` when the school returned it. ' +
      'Counts toward the leads endpoint’s limit.',
  })
  @ApiParam({ name: 'svc_lead_id', format: 'uuid', description: 'The `svc_lead_id` of a submit answer (not the search id).' })
  @ContractAnswers('lead-status', {
    type: LeadStatusAnswerSchema,
    ok: 'The submit answer as it stands, and the lead’s return (null when not returned).',
  })
  status(@Req() req: FastifyRequest, @Param('svc_lead_id') id: string) {
    return this.leadStatus.run(req.principal!, id);
  }
}
