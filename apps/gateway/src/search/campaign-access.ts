import { DataSource } from 'typeorm';
import { findCampaignForAffiliate } from '@lr/persistence';
import { ApiError } from '../http/api-error';
import { dependency } from '../http/dependency';
import { Principal } from '../auth/principal';

/** The named affiliate must be the key's (403); the campaign must be active and the caller's (400 NOT_FOUND on search). */
export function assertAffiliate(principal: Principal, affiliateId: string): void {
  if (principal.affiliateId.toLowerCase() !== affiliateId.toLowerCase()) {
    throw ApiError.forbidden('Not permitted', { error: 'affiliate_mismatch' });
  }
}

export async function assertActiveCampaign(ds: DataSource, timeoutMs: number, principal: Principal, campaignId: string): Promise<void> {
  const campaign = await dependency('postgres', timeoutMs, () => findCampaignForAffiliate(ds, campaignId));
  if (!campaign || campaign.affiliateId !== principal.affiliateId || campaign.status !== 'active') {
    throw ApiError.notFound(400, 'Campaign not found or not active', { field: 'svc_campaign_id' });
  }
}
