import { Injectable } from '@nestjs/common';
import { REFUSAL } from '@lr/domain';
import { counter } from '@lr/observability';
import { CachedSearch, searchAnswerBody, SearchStateReader } from '@lr/search-state';
import type { Principal } from '../auth/principal';
import { CampaignOwners } from '../auth/campaign-owners';
import { ApiError } from '../http/api-error';

const polls = counter('gateway_polls_total', 'Polls answered 200, by done', ['done']);

/**
 * A poll (affiliate-api.md, GET /api/v1/engine/results/{svc_lead_id}): every
 * poll returns the whole list so far, as the search answer's bytes. A search
 * of another affiliate is as unknown as a missing one (404); the caller's own
 * search whose campaign has since been given to another affiliate is 403
 * (contract: campaign not the caller's).
 */
@Injectable()
export class PollResults {
  constructor(
    private readonly reader: SearchStateReader,
    private readonly owners: CampaignOwners,
  ) {}

  /** `searchId`: a UUID, lower case; `cached`: what Redis held of it, read along the rate limit's round trip. */
  async answer(principal: Principal, searchId: string, cached: CachedSearch | undefined): Promise<Buffer> {
    const view = await this.reader.complete(searchId, cached);
    if (!view || view.meta.affiliateId !== principal.affiliateId) throw ApiError.of(REFUSAL.searchNotFound);
    if ((await this.owners.ownerOf(view.meta.campaignId)) !== principal.affiliateId) {
      throw ApiError.forbidden(REFUSAL.campaignNotOwned);
    }
    const { body, processingDone } = searchAnswerBody(view.meta, view.entries);
    polls.inc({ done: String(processingDone) });
    return body;
  }
}
