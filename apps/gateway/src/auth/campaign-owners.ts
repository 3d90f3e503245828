import { Injectable } from '@nestjs/common';
import { CampaignRecord, CatalogRepository } from '@lr/persistence';
import { CatalogChanges } from '../auth/catalog-changes';
import { Dependencies, orFromMemory } from '../http/dependencies';

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
    private readonly catalog: CatalogRepository,
    private readonly changes: CatalogChanges,
    private readonly deps: Dependencies,
  ) {
    changes.onChange(() => this.cache.clear());
  }

  /**
   * The campaign as read at most `maxAgeMs` ago; null when there is none. With
   * `fromMemoryWhileDown`, while PostgreSQL is unavailable, as read before (see
   * ApiKeyCache: the same announcements drop it).
   */
  async find(campaignId: string, maxAgeMs: number, now = Date.now(), fromMemoryWhileDown = false): Promise<CampaignRecord | null> {
    const hit = this.cache.get(campaignId);
    if (hit && this.changes.listening && now - hit.at < maxAgeMs) return hit.campaign;
    const generation = this.changes.generation;
    const held = () => {
      const entry = fromMemoryWhileDown && this.changes.listening ? this.cache.get(campaignId) : undefined;
      return entry && { value: entry.campaign, at: entry.at };
    };
    const fresh = () => this.deps.call('postgres', () => this.catalog.campaign(campaignId));
    const read = await orFromMemory('campaign', fresh, held, now);
    const campaign = read.value;
    if (read.fromMemory) return campaign;
    if (this.changes.listening && generation === this.changes.generation) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(campaignId, { campaign, at: now });
    }
    return campaign;
  }

  /** For polls, which are served while PostgreSQL is unavailable: the owner as last read, then. */
  async ownerOf(campaignId: string, now = Date.now()): Promise<string | null> {
    return (await this.find(campaignId, CAMPAIGN_OWNER_TTL_MS, now, true))?.affiliateId ?? null;
  }
}
