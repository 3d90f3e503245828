import { formatBytes, formatCount } from '../byte-size';
import { formatTable } from '../text-table';
import type { StorageReport } from './storage-report';

/** `storage report --json`: stable snake_case keys, sizes in bytes, rows as estimated by the statistics. */
export function storageJson(r: StorageReport): unknown {
  return {
    total_bytes: r.totalBytes,
    searches: r.searches,
    search_bytes: r.searchBytes,
    bytes_per_search: r.bytesPerSearch,
    tables: r.tables.map((t) => ({
      table: t.table,
      partitioned: t.partitioned,
      partitions: t.partitions,
      rows_estimate: t.rows,
      bytes: t.bytes,
    })),
    partitions: Object.fromEntries(
      Object.entries(r.partitions).map(([table, list]) => [
        table,
        list.map((p) => ({ name: p.name, day: p.day, rows_estimate: p.rows, bytes: p.bytes })),
      ]),
    ),
  };
}

/** `storage report` for a terminal: the totals, one row per table, then each partitioned table's partitions. */
export function storageLines(r: StorageReport): string[] {
  const perSearch = r.bytesPerSearch === null ? 'no search stored' : `${formatBytes(r.bytesPerSearch)} per search`;
  const lines = [
    `Storage: ${formatBytes(r.totalBytes)} in ${r.tables.length} tables (indexes and TOAST included; rows are the statistics' estimates)`,
    `Searches stored: ${formatCount(r.searches)}; searches, result templates and partner calls take ${formatBytes(r.searchBytes)}: ${perSearch}`,
    '',
    ...formatTable(
      [
        { header: 'TABLE' },
        { header: 'ROWS', align: 'right' },
        { header: 'SIZE', align: 'right' },
        { header: 'PARTITIONS', align: 'right' },
      ],
      r.tables.map((t) => [t.table, formatCount(t.rows), formatBytes(t.bytes), t.partitioned ? String(t.partitions) : '']),
    ),
  ];
  for (const [table, list] of Object.entries(r.partitions)) {
    lines.push('', `${table}:`);
    lines.push(
      ...formatTable(
        [{ header: 'PARTITION' }, { header: 'DAY' }, { header: 'ROWS', align: 'right' }, { header: 'SIZE', align: 'right' }],
        list.map((p) => [p.name, p.day, formatCount(p.rows), formatBytes(p.bytes)]),
        '  ',
      ),
    );
  }
  return lines;
}
