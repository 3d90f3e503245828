import { ApiError } from '../http/api-error';
import { Principal } from '../auth/principal';
import { CAMPAIGN_STATUS_TTL_MS, CampaignOwners } from './campaign-owners';
import { REFUSAL } from '@lr/domain';

/** The named affiliate must be the key's (403); the campaign must be active and the caller's (400 NOT_FOUND on search). */
export function assertAffiliate(principal: Principal, affiliateId: string): void {
  if (principal.affiliateId.toLowerCase() !== affiliateId.toLowerCase()) {
    throw ApiError.forbidden(REFUSAL.affiliateMismatch);
  }
}

export async function assertActiveCampaign(campaigns: CampaignOwners, principal: Principal, campaignId: string): Promise<void> {
  const campaign = await campaigns.find(campaignId, CAMPAIGN_STATUS_TTL_MS);
  if (!campaign || campaign.affiliateId !== principal.affiliateId || campaign.status !== 'active') {
    throw ApiError.of(REFUSAL.campaignNotActive);
  }
}
