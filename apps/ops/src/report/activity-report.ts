import type { ApiCode } from '@lr/contracts';
import { ActivityDimension, ActivityReportRepository, ActivityRow } from '@lr/persistence';
import { DataSource } from 'typeorm';

export const REPORT_DIMENSIONS = ['campaign', 'offer', 'affiliate'] as const satisfies readonly ActivityDimension[];
export type ReportDimension = (typeof REPORT_DIMENSIONS)[number];

/**
 * The codes a stored submit can carry, in the order reports show them: the
 * outcome first, then the service's refusals in the order the checks run,
 * then the buyer's. A code not listed here (a newer service) is still
 * counted, after these.
 */
export const SUBMIT_CODES = [
  'ACCEPTED',
  'PENDING',
  'TEST_LEAD_HELD',
  'OFFER_UNAVAILABLE',
  'REQUIRED_FIELD_MISSING',
  'INVALID_FIELD',
  'CONSENT_REQUIRED',
  'NOT_ELIGIBLE',
  'DUPLICATE',
  'CAP_REACHED',
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

/** The groups and the totals, counted in one snapshot (ActivityReportRepository), so the totals agree with the rows. */
export async function activityReport(ds: DataSource, q: ReportQuery): Promise<ActivityReport> {
  const { groups: rows, totals } = await new ActivityReportRepository(ds).activity(q);
  const totalRows = totals ? [totals] : [];
  const seen = [...rows, ...totalRows].flatMap((r) => Object.keys(r.by_code));
  const codes = [...SUBMIT_CODES, ...[...new Set(seen)].filter((c) => !(SUBMIT_CODES as readonly string[]).includes(c)).sort()];
  const figures = (r: ActivityRow | undefined): ActivityFigures => ({
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
