import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { CampaignRecord, findCampaignForAffiliate } from '@lr/persistence';
import { CatalogChanges } from '../auth/catalog-changes';
import { dependency } from '../http/dependency';

/** How long a campaign's owner is remembered for polls: an operator's reassignment reaches polls within this time. */
export const CAMPAIGN_OWNER_TTL_MS = 5000;
/** How long a campaign's owner and status are remembered for searches: a paused campaign stops taking searches within this time. */
export const CAMPAIGN_STATUS_TTL_MS = 2000;

/**
 * Campaigns as the gateway's hot paths need them: who owns one now (polls:
 * 403 when not the caller's) and whether it is active (searches). Cached in
 * memory for a few seconds, because polls and searches are the hottest calls
 * and a campaign's owner or status almost never changes. `catalog apply`
 * announces its changes (CatalogChanges) and the cache is dropped at once;
 * the TTL bounds staleness only if an announcement cannot be sent.
 */
@Injectable()
export class CampaignOwners {
  private readonly cache = new Map<string, { campaign: CampaignRecord | null; at: number }>();

  constructor(
    private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly changes: CatalogChanges,
  ) {
    changes.onChange(() => this.cache.clear());
  }

  /** The campaign as read at most `maxAgeMs` ago; null when there is none. */
  async find(campaignId: string, maxAgeMs: number, now = Date.now()): Promise<CampaignRecord | null> {
    const hit = this.cache.get(campaignId);
    if (hit && this.changes.listening && now - hit.at < maxAgeMs) return hit.campaign;
    const generation = this.changes.generation;
    const campaign = await dependency('postgres', this.config.dependencyTimeoutMs, () => findCampaignForAffiliate(this.ds, campaignId));
    if (this.changes.listening && generation === this.changes.generation) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(campaignId, { campaign, at: now });
    }
    return campaign;
  }

  async ownerOf(campaignId: string, now = Date.now()): Promise<string | null> {
    return (await this.find(campaignId, CAMPAIGN_OWNER_TTL_MS, now))?.affiliateId ?? null;
  }
}
