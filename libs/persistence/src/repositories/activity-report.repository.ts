import { OFFER_DECISIONS, SHOWN } from '../queries/shown-results';
import { DataSource } from 'typeorm';
import { run, type RowOf, statement, type WithDocuments } from '../queries/sql';

/**
 * The read model behind `ops report activity` (docs/operator-cli.md): traffic
 * of a time window counted over `searches`, `results` and `leads`, grouped by
 * campaign, offer or affiliate. It only counts; which codes are shown and how
 * is the CLI's.
 */

export type ActivityDimension = 'campaign' | 'offer' | 'affiliate';

export interface ActivityWindow {
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
  by: ActivityDimension;
  includeTest: boolean;
  /** Only this affiliate's traffic; null for everyone's. */
  affiliateId: string | null;
}

/** The figures of one group (or of all traffic), as counted. */
export type ActivityRow = WithDocuments<
  'activityTotals',
  {
    searches: number;
    results_shown: number;
    submits: number;
    /** Submits by their code now (a pending one as PENDING); codes with none are absent. */
    by_code: Record<string, number>;
    accepted: number;
    /** Sum of the accepted submits' payouts, in dollars, as exact decimal text. */
    payouts: string;
  }
>;

export interface ActivityCounts {
  /** Ordered by name (nameless last), then id. */
  groups: ActivityRow[];
  /** Over all traffic of the window: a search counted once even when grouped by offer it counts under each offer it considered. Undefined when the totals row is missing. */
  totals: ActivityRow | undefined;
}

/**
 * What each figure groups by. `searches` under an offer are the searches that
 * considered it (the offer was on the campaign searched: a key of
 * OFFER_DECISIONS); a search belongs to one campaign and one affiliate.
 */
const KEYS: Record<ActivityDimension | 'total', { search: string; searchFrom: string; result: string; lead: string; name: string }> = {
  campaign: { search: 's.campaign_id', searchFrom: '', result: 'r.campaign_id', lead: 'l.campaign_id', name: 'campaigns' },
  affiliate: { search: 's.affiliate_id', searchFrom: '', result: 's.affiliate_id', lead: 'l.affiliate_id', name: 'affiliates' },
  offer: {
    search: 'd.offer_id::uuid',
    searchFrom: `CROSS JOIN LATERAL jsonb_object_keys(${OFFER_DECISIONS('s')}) AS d(offer_id)`,
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
function activitySql(dim: ActivityDimension | 'total'): string {
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
        FROM searches s CROSS JOIN LATERAL (SELECT t.offer_id, s.campaign_id FROM ${SHOWN('s')}) r
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

/** The statement of each grouping, and of the totals. */
const ACTIVITY = {
  campaign: statement('activityByCampaign', activitySql('campaign')),
  offer: statement('activityByOffer', activitySql('offer')),
  affiliate: statement('activityByAffiliate', activitySql('affiliate')),
  total: statement('activityTotals', activitySql('total')),
};

/** A group's figures as counted: every column is computed (PostgreSQL vouches for none), a missing figure is none. */
function activityRowOf(r: RowOf<'activityByCampaign' | 'activityByOffer' | 'activityByAffiliate' | 'activityTotals'>): ActivityRow {
  return {
    id: r.id,
    name: r.name,
    searches: r.searches ?? 0,
    results_shown: r.results_shown ?? 0,
    submits: r.submits ?? 0,
    by_code: (r.by_code ?? {}) as Record<string, number>,
    accepted: r.accepted ?? 0,
    payouts: r.payouts ?? '0',
  };
}

export class ActivityReportRepository {
  constructor(private readonly ds: DataSource) {}

  /** The window's figures per group and in total, read from one snapshot (REPEATABLE READ, read only), so the totals agree with the groups. */
  async activity(q: ActivityWindow): Promise<ActivityCounts> {
    const params = [q.from, q.to, q.includeTest, q.affiliateId];
    return this.ds.transaction('REPEATABLE READ', async (em) => {
      await em.query('SET TRANSACTION READ ONLY');
      const groups = (await run(em, ACTIVITY[q.by], params)).map(activityRowOf);
      const totals = (await run(em, ACTIVITY.total, params)).map(activityRowOf);
      return { groups, totals: totals[0] };
    });
  }
}
