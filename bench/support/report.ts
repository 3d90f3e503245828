/** One row of the figures table: the system's figure beside the baseline's. */
export interface Row {
  metric: string;
  system: number;
  baseline?: number;
}

export interface Target {
  name: string;
  met: boolean;
  detail: string;
}

const fmt = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '–' : String(n));

/** The table `metric | system | baseline | ratio` (ratio: system / baseline) and the targets with PASS/MISS. */
export function renderReport(rows: Row[], targets: Target[]): string {
  const cells = rows.map((r) => [r.metric, fmt(r.system), fmt(r.baseline), r.baseline ? (r.system / r.baseline).toFixed(2) : '–']);
  const header = ['metric', 'system', 'baseline', 'ratio'];
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((row) => row[c].length)));
  const line = (row: string[]) => `| ${row.map((v, c) => (c === 0 ? v.padEnd(widths[c]) : v.padStart(widths[c]))).join(' | ')} |`;
  return [
    line(header),
    `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`,
    ...cells.map(line),
    '',
    ...targets.map((t) => `${t.met ? 'PASS' : 'MISS'}  ${t.name}: ${t.detail}`),
  ].join('\n');
}
