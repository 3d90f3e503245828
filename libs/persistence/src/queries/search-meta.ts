import type { SearchAnswerState } from '@lr/contracts';
import type { RowTypes } from './row-types.generated';

/** The columns of a search's state (aliased from `s`), for the statements that return it. */
export const SEARCH_META_COLUMNS = `s.id, s.state_version, s.affiliate_id, s.campaign_id, s.is_test, s.created_at, s.closes_at,
       s.processing_done_at, s.accepted_count, s.true_exclusive_accepted`;

/**
 * A search's state (SEARCH_META_COLUMNS) as a statement reads it from
 * `searches`, or as the JSON document of it that a statement builds (its
 * times as text).
 */
export type SearchMetaColumns = Pick<
  RowTypes['searchAnswer'],
  'id' | 'state_version' | 'affiliate_id' | 'campaign_id' | 'is_test' | 'accepted_count' | 'true_exclusive_accepted'
> & { created_at: Date | string; closes_at: Date | string; processing_done_at: Date | string | null };

export function searchMetaOf(r: SearchMetaColumns): SearchAnswerState {
  return {
    searchId: r.id,
    version: Number(r.state_version),
    affiliateId: r.affiliate_id,
    campaignId: r.campaign_id,
    isTest: r.is_test,
    createdAt: new Date(r.created_at).toISOString(),
    closesAt: new Date(r.closes_at).toISOString(),
    processingDone: r.processing_done_at !== null,
    acceptedCount: Number(r.accepted_count),
    trueExclusiveAccepted: r.true_exclusive_accepted,
  };
}
