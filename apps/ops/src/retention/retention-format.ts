import { addDays, PARTITION_DAYS_AHEAD } from '@lr/persistence';
import { formatBytes, formatCount } from '../byte-size';
import { formatTable } from '../text-table';
import type { RetentionReport } from './retention-run';

interface Totals {
  days: number;
  partitions: number;
  rows: number;
  bytes: number;
  keptSearches: number;
}

function totalsOf(report: RetentionReport): Totals {
  const partitions = report.days.flatMap((d) => d.partitions);
  return {
    days: new Set(report.days.map((d) => d.day)).size,
    partitions: partitions.length,
    rows: partitions.reduce((n, p) => n + p.rows, 0),
    bytes: partitions.reduce((n, p) => n + p.bytes, 0),
    keptSearches: report.days.reduce((n, d) => n + (d.kept?.searches ?? 0), 0),
  };
}

/** `retention run --json`: one object with stable snake_case keys; sizes in bytes, times in ms (null in a dry run). */
export function retentionJson(report: RetentionReport): unknown {
  const t = totalsOf(report);
  return {
    dry_run: report.dryRun,
    today: report.today,
    settings: { search_days: report.settings.searchDays, message_days: report.settings.messageDays },
    cutoffs: report.cutoffs,
    partitions_ahead: { missing_days: report.ahead.missingDays, created: report.ahead.created },
    days: report.days.map((d) => ({
      family: d.family,
      day: d.day,
      kept: d.kept && { searches: d.kept.searches, partner_calls: d.kept.calls, templates: d.kept.templates },
      data_keys_destroyed: d.dataKeys,
      partitions: d.partitions.map((p) => ({ table: p.table, name: p.name, rows: p.rows, bytes: p.bytes, ms: p.ms })),
    })),
    totals: { days: t.days, partitions: t.partitions, rows: t.rows, bytes: t.bytes, kept_searches: t.keptSearches },
  };
}

/**
 * `retention run` for a terminal: the windows, the partitions ahead, the
 * searches kept per day, one row per partition dropped (or that would be),
 * and a summary line.
 */
export function retentionLines(report: RetentionReport): string[] {
  const would = report.dryRun;
  const s = report.settings;
  const lines = [
    `Retention ${would ? 'dry run (nothing changed)' : 'run'} on ${report.today} (UTC): searches kept ${s.searchDays} days (days before ${report.cutoffs.searches} go), ` +
      `handled messages ${s.messageDays} days (before ${report.cutoffs.messages})`,
    aheadLine(report),
  ];
  const t = totalsOf(report);
  if (t.partitions === 0) return [...lines, '', 'Nothing to drop: no partition is past its window.'];

  lines.push('');
  for (const d of report.days) {
    if (!d.kept) continue;
    const moved =
      d.kept.calls === null ? '' : ` (with ${formatCount(d.kept.calls)} partner calls, ${formatCount(d.kept.templates ?? 0)} templates)`;
    lines.push(
      `${d.day}: ${formatCount(d.kept.searches)} search${d.kept.searches === 1 ? '' : 'es'} a lead names ${would ? 'would move' : 'moved'} to the kept partition${moved}`,
    );
    if (d.dataKeys !== null)
      lines.push(`${d.day}: ${formatCount(d.dataKeys)} data key${d.dataKeys === 1 ? '' : 's'} of the dropped searches destroyed`);
  }
  lines.push('');
  const rows = report.days.flatMap((d) =>
    d.partitions.map((p, n) => [
      n === 0 ? d.day : '',
      p.name,
      formatCount(p.rows),
      formatBytes(p.bytes),
      p.ms === null ? '-' : `${p.ms} ms`,
    ]),
  );
  lines.push(
    ...formatTable(
      [
        { header: 'DAY' },
        { header: 'PARTITION' },
        { header: 'ROWS', align: 'right' },
        { header: 'SIZE', align: 'right' },
        { header: 'TOOK', align: 'right' },
      ],
      rows,
    ),
  );
  const verb = would ? 'Would drop' : 'Dropped';
  lines.push(
    '',
    `${verb} ${t.partitions} partition${t.partitions === 1 ? '' : 's'} of ${t.days} day${t.days === 1 ? '' : 's'}: ${formatCount(t.rows)} rows, ${formatBytes(t.bytes)}; ` +
      `${formatCount(t.keptSearches)} search${t.keptSearches === 1 ? '' : 'es'} a lead names ${would ? 'would be' : 'were'} kept.` +
      (would ? ' ROWS counts the searches to keep too.' : ''),
  );
  return lines;
}

function aheadLine(report: RetentionReport): string {
  const missing = report.ahead.missingDays;
  if (missing.length === 0)
    return `Partitions ahead: every day from ${addDays(report.today, -1)} to ${addDays(report.today, PARTITION_DAYS_AHEAD)} has its partitions.`;
  const days = missing.length === 1 ? missing[0] : `${missing[0]} .. ${missing[missing.length - 1]} (${missing.length} days)`;
  return report.dryRun
    ? `Partitions ahead: missing for ${days}; a run creates them.`
    : `Partitions ahead: created ${report.ahead.created} partition${report.ahead.created === 1 ? '' : 's'} for ${days}.`;
}
