import { ApiError } from '../http/api-error';
import { Principal } from '../auth/principal';
import { CAMPAIGN_STATUS_TTL_MS, CampaignOwners } from '../results/campaign-owners';

/** The named affiliate must be the key's (403); the campaign must be active and the caller's (400 NOT_FOUND on search). */
export function assertAffiliate(principal: Principal, affiliateId: string): void {
  if (principal.affiliateId.toLowerCase() !== affiliateId.toLowerCase()) {
    throw ApiError.forbidden('Not permitted', { error: 'affiliate_mismatch' });
  }
}

export async function assertActiveCampaign(campaigns: CampaignOwners, principal: Principal, campaignId: string): Promise<void> {
  const campaign = await campaigns.find(campaignId, CAMPAIGN_STATUS_TTL_MS);
  if (!campaign || campaign.affiliateId !== principal.affiliateId || campaign.status !== 'active') {
    throw ApiError.notFound(400, 'Campaign not found or not active', { field: 'svc_campaign_id' });
  }
}
