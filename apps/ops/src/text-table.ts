export interface TableColumn {
  header: string;
  /** Numbers read best right-aligned. */
  align?: 'left' | 'right';
}

/**
 * Rows as plain aligned columns (two spaces apart, like `kubectl get`), so
 * the output reads in a terminal and still greps and cuts line by line.
 * Trailing spaces are trimmed; `indent` prefixes every line.
 */
export function formatTable(columns: readonly TableColumn[], rows: ReadonlyArray<readonly string[]>, indent = ''): string[] {
  const widths = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    indent +
    columns
      .map((c, i) => {
        const cell = cells[i] ?? '';
        return c.align === 'right' ? cell.padStart(widths[i]) : cell.padEnd(widths[i]);
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...rows.map(line)];
}
