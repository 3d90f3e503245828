import { Controller, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiParam } from '@nestjs/swagger';
import { SearchAnswerSchema } from '../openapi/answer-schemas';
import { AffiliateApi, ContractAnswers } from '../openapi/contract-answers';

/**
 * The poll as the OpenAPI document describes it. The poll itself is a plain
 * Fastify route (poll-results.route.ts), not Nest's; this class is only read
 * by the document's scan (GatewayModule.forRoot's `document`), never routed:
 * a Nest route on the same path would clash with the poll's.
 */
@Controller('api/v1/engine')
@AffiliateApi()
export class PollResultsApi {
  @Get('results/:svc_lead_id')
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
  async results(@Param('svc_lead_id') _svcLeadId: string): Promise<Buffer> {
    throw new Error('the poll is answered by its Fastify route (poll-results.route.ts)');
  }
}
