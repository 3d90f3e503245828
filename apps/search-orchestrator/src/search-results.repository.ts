import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { RankCandidate } from '@lr/domain';
import type { ResultCandidate } from './result-entries';

/** A result already shown on a search, with the keys it ranks by. */
export interface ShownResult extends RankCandidate {
  resultId: string;
}

/**
 * The writes of a search's result list, always inside the caller's
 * transaction: new results, the rank of every result (partner results merge
 * into the order), and the decision recorded for each offer.
 */
@Injectable()
export class SearchResultsRepository {
  /** Locks the search row: changes of one search's list are serialized (first results, partner answers). */
  async lockSearch(em: EntityManager, searchId: string): Promise<{ closesAt: Date; isTest: boolean; campaignId: string } | undefined> {
    const rows: Array<{ closes_at: Date; is_test: boolean; campaign_id: string }> = await em.query(
      'SELECT closes_at, is_test, campaign_id FROM searches WHERE id = $1 FOR UPDATE',
      [searchId],
    );
    const r = rows[0];
    return r && { closesAt: new Date(r.closes_at), isTest: r.is_test, campaignId: r.campaign_id };
  }

  async shownResults(em: EntityManager, searchId: string): Promise<ShownResult[]> {
    const rows: Array<{ id: string; offer_id: string; school_id: string; priority: number; source: 'own' | 'partner'; name: string; payout: number | null }> =
      await em.query(
        `SELECT r.id, r.offer_id, o.school_id, o.priority, o.source, o.name, (r.entry->>'payout')::numeric::float8 AS payout
           FROM results r JOIN offers o ON o.id = r.offer_id
          WHERE r.search_id = $1`,
        [searchId],
      );
    return rows.map((r) => ({
      resultId: r.id,
      offerId: r.offer_id,
      schoolId: r.school_id,
      priority: r.priority,
      source: r.source,
      name: r.name,
      ...(r.payout !== null ? { payout: Number(r.payout) } : {}),
    }));
  }

  /** Inserts the new results and sets every result's rank to its place in `ordered` (best first, 0-based). */
  async saveList(em: EntityManager, searchId: string, added: ResultCandidate[], ordered: Array<{ resultId: string }>): Promise<void> {
    const rank = new Map(ordered.map((r, i) => [r.resultId, i]));
    if (added.length > 0) {
      const rows = added.map((c) => ({
        id: c.resultId,
        offer_id: c.offerId,
        campaign_id: c.entry.campaign_id,
        rank: rank.get(c.resultId),
        entry: c.entry,
        partner_data: c.partnerData,
        expires_at: c.expiresAt.toISOString(),
      }));
      await em.query(
        `INSERT INTO results (id, search_id, offer_id, campaign_id, rank, entry, partner_data, expires_at)
         SELECT x.id, $1, x.offer_id, x.campaign_id, x.rank, x.entry, x.partner_data, x.expires_at
           FROM jsonb_to_recordset($2::jsonb)
             AS x(id uuid, offer_id uuid, campaign_id uuid, rank int, entry jsonb, partner_data jsonb, expires_at timestamptz)`,
        [searchId, JSON.stringify(rows)],
      );
    }
    const existing = ordered.filter((r) => !added.some((a) => a.resultId === r.resultId));
    if (existing.length > 0) {
      await em.query(
        `UPDATE results r SET rank = v.rank
           FROM unnest($2::uuid[], $3::int[]) AS v(id, rank)
          WHERE r.id = v.id AND r.search_id = $1 AND r.rank <> v.rank`,
        [searchId, existing.map((r) => r.resultId), existing.map((r) => rank.get(r.resultId))],
      );
    }
  }

  /** Merges offer decisions into the search's record and bumps its state version (every change of the list does). */
  async recordDecisions(em: EntityManager, searchId: string, decisions: Record<string, OfferDecision>, done: boolean): Promise<void> {
    await em.query(
      `UPDATE searches
          SET offer_decisions = offer_decisions || $2::jsonb,
              state_version = state_version + 1,
              processing_done_at = CASE WHEN $3 AND processing_done_at IS NULL THEN now() ELSE processing_done_at END
        WHERE id = $1`,
      [searchId, JSON.stringify(decisions), done],
    );
  }
}

/** Why an offer was or was not shown on a search (operators only). */
export interface OfferDecision {
  shown: boolean;
  reason?: string;
  detail?: string;
  result_id?: string;
  partner?: string;
}
