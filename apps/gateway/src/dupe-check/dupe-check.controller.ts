import { Body, Controller, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { counter } from '@lr/observability';
import { findAffiliate, isOfferOfAffiliate, personSoldToAffiliateOffers, personSoldToOffer } from '@lr/persistence';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { Endpoint } from '../auth/endpoint.decorator';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiError } from '../http/api-error';
import { Dependencies } from '../http/dependencies';
import { DupeCheckAnswerSchema } from '../openapi/answer-schemas';
import { AffiliateApi, ContractAnswers } from '../openapi/contract-answers';
import { DupeCheckRequestDto } from './dupe-check-request.dto';
import { parseDupeCheckRequest } from './dupe-check-request';

export const DUPE_CHECK_PATH = '/api/v1/engine/dupe-check';
export const DUPE_CHECK_BODY_LIMIT = 16 * 1024;

/** The contract's 200 answer, and nothing more: never a score or which key matched. */
export interface DupeCheckAnswer {
  code: 'OK';
  status: 'accepted';
  reason: 'OK';
  success: true;
  duplicate_likely: boolean;
  retryable: false;
}

// Labels say only the policy and the outcome: no key type, so not even the metrics tell which field matched.
const decisions = counter('gateway_dupe_check_answers_total', 'Duplicate pre-check answers by policy and outcome', ['scope', 'duplicate_likely']);

@Controller('api/v1/engine')
@AffiliateApi()
export class DupeCheckController {
  constructor(
    private readonly ds: DataSource,
    private readonly deps: Dependencies,
  ) {}

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
    const principal = req.principal!;
    const affiliate = await this.deps.call('postgres', () => findAffiliate(this.ds, principal.affiliateId));
    if (!affiliate?.dupeCheck) {
      // The contract's one plain body: the pre-check is not available on this account.
      void reply.status(404);
      return { error: 'dupe_check_not_available' };
    }
    const { offerId, keys } = parseDupeCheckRequest(body);
    if (offerId !== undefined) {
      const owned = await this.deps.call('postgres', () => isOfferOfAffiliate(this.ds, offerId, principal.affiliateId));
      if (!owned) throw ApiError.forbidden();
    }
    // Usable fields that make no person key (only a ZIP, only a first name) can match nothing: no lookup.
    const duplicate =
      keys.length > 0 &&
      (await this.deps.call('postgres', () =>
        offerId !== undefined ? personSoldToOffer(this.ds, keys, offerId) : personSoldToAffiliateOffers(this.ds, keys, principal.affiliateId),
      ));
    decisions.inc({ scope: offerId !== undefined ? 'offer' : 'account', duplicate_likely: String(duplicate) });
    return { code: 'OK', status: 'accepted', reason: 'OK', success: true, duplicate_likely: duplicate, retryable: false };
  }
}
