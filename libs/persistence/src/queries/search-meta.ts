import type { SearchAnswerState } from '@lr/contracts';

/** The columns of a search's state (aliased from `s`), for the statements that return it. */
export const SEARCH_META_COLUMNS = `s.id, s.state_version, s.affiliate_id, s.campaign_id, s.is_test, s.created_at, s.closes_at,
       s.processing_done_at, s.accepted_count, s.true_exclusive_accepted`;

export interface SearchMetaRow {
  id: string;
  state_version: number;
  affiliate_id: string;
  campaign_id: string;
  is_test: boolean;
  created_at: string | Date;
  closes_at: string | Date;
  processing_done_at: string | Date | null;
  accepted_count: number;
  true_exclusive_accepted: boolean;
}

export function searchMetaOf(r: SearchMetaRow): SearchAnswerState {
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
