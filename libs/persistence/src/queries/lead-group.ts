import { DataSource, EntityManager } from 'typeorm';
import { searchDays } from '../partitions/partition-days';
import type { RowTypes } from './row-types.generated';
import { run, statement } from './sql';

/**
 * What `lead show` and `lead explain` both read of a lead group: the group
 * itself, in one read-only snapshot, and the rows both show.
 */

/** A partner network asked during the search (`search_partner_calls`). */
export type StoryPartnerCallRow = RowTypes['storyPartnerCalls'];

/** What an id is: a search's, or a submit's (with its lead group). */
const LEAD_GROUP = statement(
  'leadGroup',
  `SELECT s.id AS search_id, l.lead_group_id
     FROM (SELECT $1::uuid AS id) q
     LEFT JOIN searches s ON s.id = q.id AND ${searchDays('s', 'q.id')}
     LEFT JOIN leads l ON l.id = q.id`,
);

const PARTNER_CALLS = statement(
  'storyPartnerCalls',
  `SELECT c.partner_id, p.name AS partner_name, c.status, c.offer_ids, c.requested_at, c.answered_at, c.latency_ms, c.result_count, c.detail
     FROM search_partner_calls c JOIN partners p ON p.id = c.partner_id
    WHERE c.search_id = $1 AND ${searchDays('c', '$1')}
    ORDER BY c.requested_at, p.name`,
);

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
    const [found] = await run(em, LEAD_GROUP, [id]);
    if (!found.search_id && !found.lead_group_id) return null;
    return work(em, { is: found.search_id ? 'search' : 'submit', groupId: (found.search_id ?? found.lead_group_id) as string });
  });
}

/** The partner networks asked during the search (also what `lead explain` reads of them). */
export function partnerCallsOf(em: EntityManager, searchId: string | null): Promise<StoryPartnerCallRow[]> {
  return run(em, PARTNER_CALLS, [searchId]);
}
