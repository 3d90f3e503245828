import type { Lead } from '@lr/domain';
import { DataSource, EntityManager } from 'typeorm';
import { searchDays } from '../partitions/partition-days';

/**
 * What `lead show` and `lead explain` both read of a lead group: the group
 * itself, in one read-only snapshot, and the rows both show.
 */

/** A submit or direct post of the group (`leads`), with its offer's, school's, affiliate's and campaign's names. */
export interface StorySubmitRow {
  id: string;
  kind: 'result_submit' | 'direct_post';
  origin_lead_id: string | null;
  result_id: string | null;
  offer_id: string;
  offer_name: string;
  offer_source: string;
  school_name: string;
  affiliate_id: string;
  affiliate_name: string;
  campaign_id: string;
  campaign_name: string;
  api_key_id: string;
  program_id: string | null;
  answers: Record<string, string> | null;
  lead: Lead;
  tracking: Record<string, string> | null;
  consumer_ip: string;
  ip_source: string;
  is_test: boolean;
  status: string;
  code: string | null;
  reason: string | null;
  field: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  /** numeric(12,2) as text. */
  payout: string | null;
  created_at: Date;
}

/** A partner network asked during the search (`search_partner_calls`). */
export interface StoryPartnerCallRow {
  partner_id: string;
  partner_name: string;
  status: string;
  offer_ids: string[];
  requested_at: Date;
  answered_at: Date | null;
  latency_ms: number | null;
  result_count: number | null;
  detail: string | null;
}

/** A submit's consent evidence (`consent_evidence`). */
export interface StoryConsentRow {
  lead_id: string;
  tcpa_consent: boolean;
  tcpa_text: string | null;
  button_label: string | null;
  ip: string;
  consented_at: Date;
  form_cert_url: string | null;
  universal_lead_cert: string | null;
}

/**
 * Runs `work` on the lead group of a search id or a submit's lead id (the
 * search, or the first direct post), in one consistent snapshot (REPEATABLE
 * READ, read only); null when the id is neither. `lead show` and `lead
 * explain` read their rows so.
 */
export function inLeadGroup<T>(
  ds: DataSource,
  id: string,
  work: (em: EntityManager, group: { is: 'search' | 'submit'; groupId: string }) => Promise<T>,
): Promise<T | null> {
  return ds.transaction('REPEATABLE READ', async (em) => {
    await em.query('SET TRANSACTION READ ONLY');
    const [found]: Array<{ search_id: string | null; lead_group_id: string | null }> = await em.query(
      `SELECT s.id AS search_id, l.lead_group_id
         FROM (SELECT $1::uuid AS id) q
         LEFT JOIN searches s ON s.id = q.id AND ${searchDays('s', 'q.id')}
         LEFT JOIN leads l ON l.id = q.id`,
      [id],
    );
    if (!found.search_id && !found.lead_group_id) return null;
    return work(em, { is: found.search_id ? 'search' : 'submit', groupId: (found.search_id ?? found.lead_group_id) as string });
  });
}

/** The partner networks asked during the search (also what `lead explain` reads of them). */
export function partnerCallsOf(em: EntityManager, searchId: string | null): Promise<StoryPartnerCallRow[]> {
  return em.query(
    `SELECT c.partner_id, p.name AS partner_name, c.status, c.offer_ids, c.requested_at, c.answered_at, c.latency_ms, c.result_count, c.detail
       FROM search_partner_calls c JOIN partners p ON p.id = c.partner_id
      WHERE c.search_id = $1 AND ${searchDays('c', '$1')}
      ORDER BY c.requested_at, p.name`,
    [searchId],
  );
}
