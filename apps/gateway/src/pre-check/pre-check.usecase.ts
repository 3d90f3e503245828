import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { DUPE_CHECK_NOT_AVAILABLE, OK, soldWithinWindow } from '@lr/domain';
import { counter } from '@lr/observability';
import { CatalogRepository, DedupeIndex } from '@lr/persistence';
import type { Principal } from '../auth/principal';
import { ApiError } from '../http/api-error';
import { Dependencies } from '../http/dependencies';
import { parseDupeCheckRequest } from './dupe-check-request';

/** The contract's 200 answer, and nothing more: never a score or which key matched. */
export interface DupeCheckAnswer {
  code: 'OK';
  status: 'accepted';
  reason: 'OK';
  success: true;
  duplicate_likely: boolean;
  retryable: false;
}

// Labels say only the policy and the outcome: no key type, so not even the metrics tell which field matched.
const decisions = counter('gateway_dupe_check_answers_total', 'Duplicate pre-check answers by policy and outcome', [
  'scope',
  'duplicate_likely',
]);

/**
 * The duplicate pre-check (affiliate-api.md, POST /api/v1/engine/dupe-check;
 * docs/duplicates.md): the submit's own duplicate rule (libs/domain
 * duplicates: a key of the person sold to the offer within its window) on the
 * dedupe index. With `offer_id` it answers exactly that rule for the offer;
 * without it, whether a submit to some offer on the caller's campaigns would
 * very likely be refused as DUPLICATE. The contract's plain 404 body when the
 * account does not have the pre-check.
 */
@Injectable()
export class PreCheck {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly dedupe: DedupeIndex,
    private readonly deps: Dependencies,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'personKeySecret'>,
  ) {}

  async run(principal: Principal, body: unknown, now = new Date()): Promise<DupeCheckAnswer | { error: string }> {
    const affiliate = await this.deps.call('postgres', () => this.catalog.affiliate(principal.affiliateId));
    if (!affiliate?.dupeCheck) return { error: DUPE_CHECK_NOT_AVAILABLE.error };
    const { offerId, keys } = parseDupeCheckRequest(this.config.personKeySecret, body);
    if (offerId !== undefined) {
      const owned = await this.deps.call('postgres', () => this.catalog.isOfferOfAffiliate(offerId, principal.affiliateId));
      if (!owned) throw ApiError.forbidden();
    }
    // Usable fields that make no person key (only a ZIP, only a first name) can match nothing: no lookup.
    const sold =
      keys.length === 0
        ? []
        : await this.deps.call('postgres', () =>
            this.dedupe.lastSales(keys, offerId !== undefined ? { offerIds: [offerId] } : { affiliateId: principal.affiliateId }),
          );
    const duplicate = sold.some((s) => soldWithinWindow(s.soldAt, s.windowDays, now));
    decisions.inc({ scope: offerId !== undefined ? 'offer' : 'account', duplicate_likely: String(duplicate) });
    return {
      code: OK.code as 'OK',
      status: OK.status as 'accepted',
      reason: OK.reason as 'OK',
      success: true,
      duplicate_likely: duplicate,
      retryable: false,
    };
  }
}
