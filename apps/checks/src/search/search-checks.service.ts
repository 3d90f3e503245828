import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OffersCheckAnswerV1, OffersCheckRequestedV1 } from '@lr/contracts';
import { Lead, leadDedupeKeys } from '@lr/domain';
import { searchCheckFacts } from '@lr/persistence';
import { CampaignCatalog, judgeCandidates, screenOffers } from '@lr/platform';

/**
 * The search-time checks (issue: search and polling, item 3): which of a
 * campaign's offers the search's lead may be shown, and with which programs.
 * The catalog rules first (screenOffers), then, for what is left, in one
 * statement: caps already full, the person already sold to the offer within
 * its duplicate window (live searches only: test mode skips the person-level
 * duplicate check), and the search's own sale state (judgeCandidates).
 * Read-only, so a redelivered request has no effect beyond its answer.
 */
@Injectable()
export class SearchChecksService {
  constructor(
    private readonly ds: DataSource,
    private readonly catalog: CampaignCatalog,
  ) {}

  async check(req: OffersCheckRequestedV1, today: Date = new Date()): Promise<OffersCheckAnswerV1> {
    const catalog = new Map((await this.catalog.offersOf(req.campaignId)).map((o) => [o.offerId, o]));
    const lead = req.lead as Lead;
    const screened = screenOffers(catalog, req.offerIds, lead, today);
    // One round trip for all three lookups (see searchCheckFacts).
    const facts = await searchCheckFacts(this.ds, {
      campaignId: req.campaignId,
      offers: screened.candidates.map((c) => ({ offerId: c.offer.offerId, windowDays: c.offer.duplicateWindowDays })),
      keys: req.isTest ? [] : leadDedupeKeys(lead),
      searchId: req.searchStored ? req.searchId : undefined,
    });
    return { searchId: req.searchId, outcomes: judgeCandidates(req.offerIds, screened, facts) };
  }
}
