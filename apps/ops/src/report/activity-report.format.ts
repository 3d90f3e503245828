import { formatTable, TableColumn } from '../text-table';
import type { ActivityFigures, ActivityReport } from './activity-report';

/**
 * `report` for a terminal: one row per group and a TOTAL row. The submit
 * codes shown are those with a count in the window (ACCEPTED is the ACCEPTED
 * column); `--json` always carries every code.
 */
export function formatActivityReport(report: ActivityReport): string[] {
  const test = report.include_test ? 'test traffic included' : 'test traffic excluded (--include-test to include it)';
  const scope = report.affiliate_id ? `, affiliate ${report.affiliate_id}` : '';
  const header = `Activity from ${report.from} (included) to ${report.to} (excluded), by ${report.by}${scope}; ${test}`;
  if (report.groups.length === 0) return [header, '', 'No searches or submits in this window.'];
  const codes = report.codes.filter((c) => c !== 'ACCEPTED' && report.totals.submits_by_code[c] > 0);
  const columns: TableColumn[] = [
    { header: report.by.toUpperCase() },
    { header: 'ID' },
    ...['SEARCHES', 'RESULTS', 'SUBMITS', ...codes, 'ACCEPTED', 'PAYOUTS'].map((h): TableColumn => ({ header: h, align: 'right' })),
  ];
  const cells = (f: ActivityFigures) => [
    String(f.searches),
    String(f.results_shown),
    String(f.submits),
    ...codes.map((c) => String(f.submits_by_code[c])),
    String(f.accepted),
    f.payouts.toFixed(2),
  ];
  const rows = report.groups.map((g) => [g.name ?? '(unknown)', g.id, ...cells(g)]);
  const lines = formatTable(columns, [...rows, ['TOTAL', '', ...cells(report.totals)]]);
  const notes =
    report.by === 'offer'
      ? ['', 'SEARCHES per offer: searches that considered the offer (it was on the campaign searched); TOTAL counts each search once.']
      : [];
  return [header, '', ...lines, ...notes];
}
