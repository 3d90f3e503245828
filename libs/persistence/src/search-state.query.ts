import { DataSource, EntityManager } from 'typeorm';
import type { ResultEntry, SearchState } from '@lr/contracts';

/**
 * A search as stored in PostgreSQL, in the shape of its hot Redis state: what a
 * poll answers when Redis has lost it, and what a redelivered search request
 * answers from. Undefined when there is no such search.
 */
export async function loadSearchState(db: DataSource | EntityManager, searchId: string): Promise<SearchState | undefined> {
  const rows: Array<Record<string, unknown>> = await db.query(
    `SELECT s.id, s.affiliate_id, s.campaign_id, s.is_test, s.created_at, s.closes_at, s.processing_done_at,
            s.accepted_count, s.true_exclusive_accepted, s.state_version,
            COALESCE((SELECT json_agg(r.entry ORDER BY array_position(s.result_order, r.id)) FROM results r WHERE r.search_id = s.id), '[]') AS offers
       FROM searches s WHERE s.id = $1`,
    [searchId],
  );
  const s = rows[0];
  if (!s) return undefined;
  return {
    searchId: String(s.id),
    version: Number(s.state_version),
    affiliateId: String(s.affiliate_id),
    campaignId: String(s.campaign_id),
    isTest: Boolean(s.is_test),
    createdAt: new Date(s.created_at as string).toISOString(),
    closesAt: new Date(s.closes_at as string).toISOString(),
    processingDone: s.processing_done_at !== null,
    acceptedCount: Number(s.accepted_count),
    trueExclusiveAccepted: Boolean(s.true_exclusive_accepted),
    offers: s.offers as ResultEntry[],
  };
}
