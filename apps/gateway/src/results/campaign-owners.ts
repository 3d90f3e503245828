import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { findCampaignForAffiliate } from '@lr/persistence';
import { dependency } from '../http/dependency';

/** How long a campaign's owner is remembered: an operator's reassignment reaches polls within this time. */
export const CAMPAIGN_OWNER_TTL_MS = 5000;

/**
 * Who owns a campaign now, for polls (contract: 403 when the campaign is not
 * the caller's). Cached in memory for a few seconds, because a poll is the
 * hottest call and the owner of a campaign almost never changes.
 */
@Injectable()
export class CampaignOwners {
  private readonly cache = new Map<string, { affiliateId: string | null; at: number }>();

  constructor(
    private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async ownerOf(campaignId: string, now = Date.now()): Promise<string | null> {
    const hit = this.cache.get(campaignId);
    if (hit && now - hit.at < CAMPAIGN_OWNER_TTL_MS) return hit.affiliateId;
    const campaign = await dependency('postgres', this.config.dependencyTimeoutMs, () => findCampaignForAffiliate(this.ds, campaignId));
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(campaignId, { affiliateId: campaign?.affiliateId ?? null, at: now });
    return campaign?.affiliateId ?? null;
  }
}
