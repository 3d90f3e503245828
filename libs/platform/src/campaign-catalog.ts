import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@lr/config';
import type { CampaignOffer } from '@lr/domain';
import { CatalogRepository } from '@lr/persistence';

const MAX_CAMPAIGNS = 5000;

/**
 * A campaign's offers as the catalog defines them (the domain's CampaignOffer), kept in memory for
 * CATALOG_CACHE_MS (2 s): a search reads them several times (checks, the
 * orchestrator, each partner answer), and at tens of searches a second reading
 * 50 offers with their programs and questions every time costs more CPU than
 * the whole rest of the search. A catalog change (a paused offer, a new payout)
 * reaches searches and submits within that time. Caps, sales and duplicates are never
 * cached: they are read for every check. Concurrent misses share one read.
 */
@Injectable()
export class CampaignCatalog {
  private readonly entries = new Map<string, { at: number; offers: Promise<CampaignOffer[]> }>();
  private readonly catalog: CatalogRepository;

  constructor(
    ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.catalog = new CatalogRepository(ds);
  }

  offersOf(campaignId: string, now = Date.now()): Promise<CampaignOffer[]> {
    const ttl = this.config.catalogCacheMs;
    if (ttl <= 0) return this.catalog.campaignOffers(campaignId);
    const hit = this.entries.get(campaignId);
    if (hit && now - hit.at < ttl) return hit.offers;
    if (this.entries.size >= MAX_CAMPAIGNS) this.entries.clear();
    const offers = this.catalog.campaignOffers(campaignId);
    this.entries.set(campaignId, { at: now, offers });
    // A failed read is not remembered: the next search tries again.
    offers.catch(() => this.entries.get(campaignId)?.offers === offers && this.entries.delete(campaignId));
    return offers;
  }
}
