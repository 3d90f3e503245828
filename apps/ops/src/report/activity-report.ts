import type { ApiCode } from '@lr/contracts';
import { DataSource } from 'typeorm';

export const REPORT_DIMENSIONS = ['campaign', 'offer', 'affiliate'] as const;
export type ReportDimension = (typeof REPORT_DIMENSIONS)[number];

/**
 * The codes a stored submit can carry, in the order reports show them: the
 * outcome first, then the service's refusals in the order the checks run,
 * then the buyer's. A code not listed here (a newer service) is still
 * counted, after these.
 */
export const SUBMIT_CODES = [
  'ACCEPTED', 'PENDING', 'TEST_LEAD_HELD',
  'OFFER_UNAVAILABLE', 'REQUIRED_FIELD_MISSING', 'INVALID_FIELD', 'CONSENT_REQUIRED', 'NOT_ELIGIBLE', 'DUPLICATE', 'CAP_REACHED',
  'BUYER_REJECTED',
] as const satisfies readonly ApiCode[];

export interface ReportQuery {
  from: Date;
  to: Date;
  by: ReportDimension;
  includeTest: boolean;
  /** Only this affiliate's traffic; null for everyone's. */
  affiliateId: string | null;
}

export interface ActivityFigures {
  searches: number;
  results_shown: number;
  submits: number;
  /** Every code of SUBMIT_CODES (0 when none), then any other code seen. */
  submits_by_code: Record<string, number>;
  accepted: number;
  /** Sum of the accepted submits' payouts, in dollars. */
  payouts: number;
}

export interface ActivityGroup extends ActivityFigures {
  id: string;
  name: string | null;
}

export interface ActivityReport {
  from: string;
  to: string;
  by: ReportDimension;
  include_test: boolean;
  affiliate_id: string | null;
  codes: string[];
  groups: ActivityGroup[];
  /** Over all traffic of the window: searches counted once even when --by offer counts a search under each offer it considered. */
  totals: ActivityFigures;
}

/**
 * What each figure groups by. `searches` under an offer are the searches that
 * considered it (the offer was on the campaign searched: a key of
 * `offer_decisions`); a search belongs to one campaign and one affiliate.
 */
const KEYS: Record<ReportDimension | 'total', { search: string; searchFrom: string; result: string; lead: string; name: string }> = {
  campaign: { search: 's.campaign_id', searchFrom: '', result: 'r.campaign_id', lead: 'l.campaign_id', name: 'campaigns' },
  affiliate: { search: 's.affiliate_id', searchFrom: '', result: 's.affiliate_id', lead: 'l.affiliate_id', name: 'affiliates' },
  offer: {
    search: 'd.offer_id::uuid',
    searchFrom: 'CROSS JOIN LATERAL jsonb_object_keys(s.offer_decisions) AS d(offer_id)',
    result: 'r.offer_id',
    lead: 'l.offer_id',
    name: 'offers',
  },
  total: { search: 'NULL::uuid', searchFrom: '', result: 'NULL::uuid', lead: 'NULL::uuid', name: '' },
};

/**
 * One statement per grouping, every figure aggregated in PostgreSQL:
 * - searches: created in [from, to);
 * - results shown: the results of those searches (partner results merged
 *   later included);
 * - submits: submits and direct posts received in [from, to), by their code
 *   now; accepted and payouts are those of these submits that are accepted.
 * Test traffic (searches and submits with is_test) is left out unless
 * includeTest. $1 from, $2 to, $3 includeTest, $4 affiliate or null.
 */
function activitySql(dim: ReportDimension | 'total'): string {
  const k = KEYS[dim];
  const window = (t: string) =>
    `${t}.created_at >= $1 AND ${t}.created_at < $2 AND ($3 OR NOT ${t}.is_test) AND ($4::uuid IS NULL OR ${t}.affiliate_id = $4::uuid)`;
  const same = (cte: string) => `${cte}.k IS NOT DISTINCT FROM g.k`;
  return `
    WITH s AS (
      SELECT ${k.search} AS k, count(*)::int AS searches
        FROM searches s ${k.searchFrom}
       WHERE ${window('s')}
       GROUP BY 1
    ), r AS (
      SELECT ${k.result} AS k, count(*)::int AS results_shown
        FROM results r JOIN searches s ON s.id = r.search_id
       WHERE ${window('s')}
       GROUP BY 1
    ), lc AS (
      SELECT ${k.lead} AS k, COALESCE(l.code, 'PENDING') AS code, count(*)::int AS n,
             count(*) FILTER (WHERE l.status = 'accepted')::int AS accepted,
             COALESCE(sum(l.payout) FILTER (WHERE l.status = 'accepted'), 0) AS payouts
        FROM leads l
       WHERE ${window('l')}
       GROUP BY 1, 2
    ), l AS (
      SELECT k, sum(n)::int AS submits, jsonb_object_agg(code, n) AS by_code, sum(accepted)::int AS accepted, sum(payouts) AS payouts
        FROM lc GROUP BY k
    ), g AS (
      SELECT k FROM s UNION SELECT k FROM r UNION SELECT k FROM l
    )
    SELECT g.k AS id, ${k.name ? 'n.name' : 'NULL'} AS name,
           COALESCE(s.searches, 0) AS searches, COALESCE(r.results_shown, 0) AS results_shown,
           COALESCE(l.submits, 0) AS submits, COALESCE(l.by_code, '{}'::jsonb) AS by_code,
           COALESCE(l.accepted, 0) AS accepted, COALESCE(l.payouts, 0)::text AS payouts
      FROM g
      LEFT JOIN s ON ${same('s')}
      LEFT JOIN r ON ${same('r')}
      LEFT JOIN l ON ${same('l')}
      ${k.name ? `LEFT JOIN ${k.name} n ON n.id = g.k` : ''}
     ORDER BY name NULLS LAST, id`;
}

type Row = { id: string | null; name: string | null; searches: number; results_shown: number; submits: number; by_code: Record<string, number>; accepted: number; payouts: string };

/** The groups and the totals, read from one snapshot (REPEATABLE READ), so the totals agree with the rows. */
export async function activityReport(ds: DataSource, q: ReportQuery): Promise<ActivityReport> {
  const params = [q.from, q.to, q.includeTest, q.affiliateId];
  const [rows, totalRows] = await ds.transaction('REPEATABLE READ', async (em) => {
    await em.query('SET TRANSACTION READ ONLY');
    return [(await em.query(activitySql(q.by), params)) as Row[], (await em.query(activitySql('total'), params)) as Row[]];
  });
  const seen = [...rows, ...totalRows].flatMap((r) => Object.keys(r.by_code));
  const codes = [...SUBMIT_CODES, ...[...new Set(seen)].filter((c) => !(SUBMIT_CODES as readonly string[]).includes(c)).sort()];
  const figures = (r: Row | undefined): ActivityFigures => ({
    searches: r?.searches ?? 0,
    results_shown: r?.results_shown ?? 0,
    submits: r?.submits ?? 0,
    submits_by_code: Object.fromEntries(codes.map((c) => [c, r?.by_code[c] ?? 0])),
    accepted: r?.accepted ?? 0,
    payouts: Number(r?.payouts ?? 0),
  });
  return {
    from: q.from.toISOString(),
    to: q.to.toISOString(),
    by: q.by,
    include_test: q.includeTest,
    affiliate_id: q.affiliateId,
    codes,
    groups: rows.map((r) => ({ id: r.id as string, name: r.name, ...figures(r) })),
    totals: figures(totalRows[0]),
  };
}
