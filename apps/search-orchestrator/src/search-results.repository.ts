import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { SearchMeta } from '@lr/contracts';
import type { RankCandidate } from '@lr/domain';
import type { ResultCandidate } from './result-entries';

/** A result already shown on a search, with the keys it ranks by. */
export interface ShownResult extends RankCandidate {
  resultId: string;
}

/**
 * The write of a partner's answer: its new results, the new order of the list
 * (`searches.result_order`), the decisions made, the call marked answered, a
 * new state version, and done once no other partner call is pending.
 */
@Injectable()
export class SearchResultsRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * Saves a partner's answer on the version of the search it was merged from,
   * in one statement (one round trip, one commit). Optimistic: nothing is
   * written and the answer is undefined when the search moved on since that
   * read (another partner's answer or a sale bumped `state_version`) or the
   * call is no longer pending; the caller reads again. The version check and
   * the row lock of the UPDATE make concurrent answers of one search apply one
   * at a time, each on the list the previous one left: a successful UPDATE
   * found the newest row version equal to the one read, so every earlier
   * answer had committed before this statement's snapshot, and "no other call
   * pending" sees their calls answered.
   */
  async saveAnswer(
    searchId: string,
    version: number,
    answer: { partnerId: string; outcome: string; latencyMs: number; resultCount: number; detail: string | null },
    change: { order: string[]; decisions: Record<string, OfferDecision>; added: ResultCandidate[] },
  ): Promise<SearchMeta | undefined> {
    const rows: Array<Record<string, unknown>> = await this.ds.query(
      `WITH search AS (
         UPDATE searches s
            SET result_order = $3::uuid[],
                offer_decisions = s.offer_decisions || $4::jsonb,
                state_version = s.state_version + 1,
                processing_done_at = CASE
                  WHEN s.processing_done_at IS NULL
                   AND NOT EXISTS (SELECT 1 FROM search_partner_calls c
                                    WHERE c.search_id = s.id AND c.status = 'pending' AND c.partner_id <> $6)
                  THEN now() ELSE s.processing_done_at END
          WHERE s.id = $1 AND s.state_version = $2
            AND EXISTS (SELECT 1 FROM search_partner_calls c WHERE c.search_id = $1 AND c.partner_id = $6 AND c.status = 'pending')
          RETURNING s.state_version, s.affiliate_id, s.campaign_id, s.is_test, s.created_at, s.closes_at,
                    s.processing_done_at, s.accepted_count, s.true_exclusive_accepted
       ), answered AS (
         UPDATE search_partner_calls
            SET status = $7, answered_at = now(), latency_ms = $8, result_count = $9, detail = $10
          WHERE search_id = $1 AND partner_id = $6 AND status = 'pending' AND EXISTS (SELECT 1 FROM search)
          RETURNING 1
       ), shown AS (
         ${RESULT_ROWS_INSERT('$1::uuid', '$5', 'WHERE EXISTS (SELECT 1 FROM search)')}
         RETURNING 1
       )
       SELECT * FROM search`,
      [
        searchId, version, change.order, JSON.stringify(change.decisions), JSON.stringify(resultRows(change.added)),
        answer.partnerId, answer.outcome, answer.latencyMs, answer.resultCount, answer.detail,
      ],
    );
    const r = rows[0];
    if (!r) return undefined;
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
      // The order written (not read back: parsing a uuid[] of every result costs more than it checks).
      order: change.order,
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
