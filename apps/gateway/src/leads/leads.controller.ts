import { Body, Controller, Inject, Post, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { findCampaignForAffiliate, findOfferForDirectPost, findResultForSubmit } from '@lr/persistence';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { Endpoint } from '../auth/endpoint.decorator';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiError } from '../http/api-error';
import { dependency } from '../http/dependency';
import { assertAffiliate } from '../search/campaign-access';
import { parseLeadsRequest } from './parse-leads-request';

@Controller('api/v1/engine')
@UseGuards(ApiKeyGuard, RateLimitGuard)
export class LeadsController {
  constructor(
    private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The front door of submits: validation, affiliate, campaign, result or offer
   * ownership, each with the contract's status. The decision itself (checks,
   * atomic sale, delivery) is the delivery service's; see docs/decisions.md.
   */
  @Post('leads')
  @Endpoint('leads')
  async submit(@Req() req: FastifyRequest, @Body() body: unknown): Promise<never> {
    const principal = req.principal!;
    const request = parseLeadsRequest(body);
    assertAffiliate(principal, request.dto.svc_affiliate_id);
    const timeout = this.config.dependencyTimeoutMs;
    const campaignId = request.dto.svc_campaign_id.toLowerCase();
    const campaign = await dependency('postgres', timeout, () => findCampaignForAffiliate(this.ds, campaignId));
    if (!campaign || campaign.affiliateId !== principal.affiliateId) throw ApiError.forbidden();

    if (request.mode === 'result_submit') {
      const result = isUUID(request.resultId)
        ? await dependency('postgres', timeout, () => findResultForSubmit(this.ds, request.resultId.toLowerCase()))
        : undefined;
      if (!result || result.affiliateId !== principal.affiliateId || result.searchId !== request.searchId) {
        throw ApiError.notFound(404, 'Search result not found', { error: 'search_result_not_found' });
      }
      if (result.campaignId !== campaignId) throw ApiError.forbidden('Not permitted', { error: 'result_campaign_mismatch' });
    } else {
      const offer = await dependency('postgres', timeout, () => findOfferForDirectPost(this.ds, request.offerId, campaignId));
      if (!offer) throw ApiError.notFound(404, 'Offer not found', { field: 'svc_offer_id' });
      if (offer.source === 'partner') {
        throw ApiError.invalidField('svc_offer_id', 'svc_offer_id is a partner offer: submit it from a search result');
      }
      if (!offer.onCampaign) throw ApiError.forbidden();
    }
    throw new ApiError(503, 'UNAVAILABLE', 'Lead submission is not enabled on this deployment yet', { retryable: false }, 'failed');
  }
}
