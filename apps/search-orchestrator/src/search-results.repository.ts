import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { SearchMeta } from '@lr/contracts';
import type { RankCandidate } from '@lr/domain';
import type { ResultCandidate } from './result-entries';

/** A result already shown on a search, with the keys it ranks by. */
export interface ShownResult extends RankCandidate {
  resultId: string;
}

/**
 * The writes of a search's result list, always inside the caller's
 * transaction: new results, the order of the list (`searches.result_order`;
 * partner results merge into it), and the decision recorded for each offer.
 */
@Injectable()
export class SearchResultsRepository {
  /** Locks the search row: changes of one search's list are serialized (first results, partner answers). */
  async lockSearch(
    em: EntityManager,
    searchId: string,
  ): Promise<{ closesAt: Date; isTest: boolean; campaignId: string; resultOrder: string[] } | undefined> {
    const rows: Array<{ closes_at: Date; is_test: boolean; campaign_id: string; result_order: string[] }> = await em.query(
      'SELECT closes_at, is_test, campaign_id, result_order FROM searches WHERE id = $1 FOR UPDATE',
      [searchId],
    );
    const r = rows[0];
    return r && { closesAt: new Date(r.closes_at), isTest: r.is_test, campaignId: r.campaign_id, resultOrder: r.result_order };
  }

  /**
   * Takes a partner's answer on the (locked) search's pending call and reads
   * the results already shown, in one statement (after the lock, so it sees
   * every change committed before). Undefined when the call is not pending
   * (it already took an answer).
   */
  async answerCall(
    em: EntityManager,
    searchId: string,
    answer: { partnerId: string; outcome: string; latencyMs: number; resultCount: number; detail: string | null },
  ): Promise<ShownResult[] | undefined> {
    type Row = { id: string; offer_id: string; school_id: string; priority: number; source: 'own' | 'partner'; name: string; payout: number | null };
    const rows: Array<{ answered: number; shown: Row[] }> = await em.query(
      `WITH answered AS (
         UPDATE search_partner_calls
            SET status = $3, answered_at = now(), latency_ms = $4, result_count = $5, detail = $6
          WHERE search_id = $1 AND partner_id = $2 AND status = 'pending'
          RETURNING partner_id
       )
       SELECT (SELECT count(*) FROM answered)::int AS answered,
              COALESCE((SELECT json_agg(json_build_object(
                         'id', r.id, 'offer_id', r.offer_id, 'school_id', o.school_id, 'priority', o.priority, 'source', o.source,
                         'name', o.name, 'payout', (r.entry->>'payout')::numeric::float8))
                          FROM results r JOIN offers o ON o.id = r.offer_id
                         WHERE r.search_id = $1), '[]'::json) AS shown`,
      [searchId, answer.partnerId, answer.outcome, answer.latencyMs, answer.resultCount, answer.detail],
    );
    if (rows[0].answered === 0) return undefined;
    return rows[0].shown.map((r) => ({
      resultId: r.id,
      offerId: r.offer_id,
      schoolId: r.school_id,
      priority: r.priority,
      source: r.source,
      name: r.name,
      ...(r.payout !== null ? { payout: Number(r.payout) } : {}),
    }));
  }

  /**
   * After a partner's answer: its new results, the new order of the list, the
   * decisions made, a new state version, and done once no partner call is
   * pending. One statement on the (locked) search row; no result row is
   * rewritten.
   */
  async saveChange(
    em: EntityManager,
    searchId: string,
    order: string[],
    decisions: Record<string, OfferDecision>,
    added: ResultCandidate[],
  ): Promise<SearchMeta> {
    const [rows]: [Array<Record<string, unknown>>, number] = await em.query(
      `WITH shown AS (
         ${RESULT_ROWS_INSERT('$1::uuid', '$4')}
         RETURNING 1
       )
       UPDATE searches s
          SET result_order = $2::uuid[],
              offer_decisions = s.offer_decisions || $3::jsonb,
              state_version = s.state_version + 1,
              processing_done_at = CASE
                WHEN s.processing_done_at IS NULL
                 AND NOT EXISTS (SELECT 1 FROM search_partner_calls c WHERE c.search_id = s.id AND c.status = 'pending')
                THEN now() ELSE s.processing_done_at END
        WHERE s.id = $1
        RETURNING s.state_version, s.affiliate_id, s.campaign_id, s.is_test, s.created_at, s.closes_at,
                  s.processing_done_at, s.accepted_count, s.true_exclusive_accepted, s.result_order`,
      [searchId, order, JSON.stringify(decisions), JSON.stringify(resultRows(added))],
    );
    // TypeORM answers an UPDATE ... RETURNING with [rows, affected].
    const r = rows[0];
    return {
      searchId,
      version: Number(r.state_version),
      affiliateId: String(r.affiliate_id),
      campaignId: String(r.campaign_id),
      isTest: Boolean(r.is_test),
      createdAt: new Date(r.created_at as string).toISOString(),
      closesAt: new Date(r.closes_at as string).toISOString(),
      processingDone: r.processing_done_at !== null,
      acceptedCount: Number(r.accepted_count),
      trueExclusiveAccepted: Boolean(r.true_exclusive_accepted),
      order: r.result_order as string[],
    };
  }
}

/** The rows of new results, as the JSON parameter of RESULT_ROWS_INSERT. */
export function resultRows(added: ResultCandidate[]) {
  return added.map((c) => ({
    id: c.resultId,
    offer_id: c.offerId,
    campaign_id: c.entry.campaign_id,
    entry: c.entry,
    partner_data: c.partnerData,
    expires_at: c.expiresAt.toISOString(),
  }));
}

/** INSERT of result rows for one search (an SQL expression) from a JSON array parameter (resultRows). */
export const RESULT_ROWS_INSERT = (searchIdSql: string, rowsParam: string, where = '') =>
  `INSERT INTO results (id, search_id, offer_id, campaign_id, entry, partner_data, expires_at)
   SELECT x.id, ${searchIdSql}, x.offer_id, x.campaign_id, x.entry, x.partner_data, x.expires_at
     FROM jsonb_to_recordset(${rowsParam}::jsonb)
       AS x(id uuid, offer_id uuid, campaign_id uuid, entry jsonb, partner_data jsonb, expires_at timestamptz) ${where}`;

/** Why an offer was or was not shown on a search (operators only). */
export interface OfferDecision {
  shown: boolean;
  reason?: string;
  detail?: string;
  result_id?: string;
  partner?: string;
}
