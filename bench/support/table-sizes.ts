import { Client } from 'pg';

/** What one table holds on disk, its partitions summed (bytes). */
export interface TableSize {
  /** The main fork of the heap. */
  heap: number;
  /** The TOAST table with its index. */
  toast: number;
  indexes: number;
  /** The free space and visibility maps (made by VACUUM). */
  maps: number;
  /** pg_total_relation_size: all of the above. */
  total: number;
}

/**
 * Every table of the schema with its size, a partitioned table as the sum of
 * its partitions (a partitioned parent stores nothing itself). Sizes are
 * read after a CHECKPOINT, so every page written so far is counted where it
 * ends up.
 */
export async function tableSizes(databaseUrl: string): Promise<Map<string, TableSize>> {
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  try {
    await pg.query('CHECKPOINT');
    const { rows } = await pg.query<{ table: string; heap: string; toast: string; indexes: string; maps: string; total: string }>(
      `SELECT COALESCE(pg_partition_root(c.oid), c.oid)::regclass::text AS table,
              sum(pg_relation_size(c.oid, 'main')) AS heap,
              sum(COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0)) AS toast,
              sum(pg_indexes_size(c.oid)) AS indexes,
              sum(pg_relation_size(c.oid, 'fsm') + pg_relation_size(c.oid, 'vm')) AS maps,
              sum(pg_total_relation_size(c.oid)) AS total
         FROM pg_class c
        WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace
        GROUP BY 1`,
    );
    return new Map(
      rows.map((r) => [
        r.table,
        { heap: Number(r.heap), toast: Number(r.toast), indexes: Number(r.indexes), maps: Number(r.maps), total: Number(r.total) },
      ]),
    );
  } finally {
    await pg.end();
  }
}

/** A table's growth between two readings, per unit of work (`units`: searches), in bytes. */
export interface TableGrowth extends TableSize {
  table: string;
}

/** The tables that grew (or shrank) between two readings, the largest growth first, each divided by `units`. */
export function growthPer(before: Map<string, TableSize>, after: Map<string, TableSize>, units: number): TableGrowth[] {
  const zero: TableSize = { heap: 0, toast: 0, indexes: 0, maps: 0, total: 0 };
  const per = (n: number) => Math.round(n / units);
  return [...new Set([...before.keys(), ...after.keys()])]
    .map((table) => {
      const a = after.get(table) ?? zero;
      const b = before.get(table) ?? zero;
      return {
        table,
        heap: per(a.heap - b.heap),
        toast: per(a.toast - b.toast),
        indexes: per(a.indexes - b.indexes),
        maps: per(a.maps - b.maps),
        total: per(a.total - b.total),
        changed: a.total !== b.total,
      };
    })
    .filter((g) => g.changed)
    .map(({ changed: _changed, ...g }) => g)
    .sort((x, y) => y.total - x.total);
}

/** The growth per unit as a text table: `table | heap | toast | indexes | maps | total`, with the sum of every table last. */
export function growthTable(rows: TableGrowth[]): string {
  const sum = rows.reduce(
    (s, r) => ({
      heap: s.heap + r.heap,
      toast: s.toast + r.toast,
      indexes: s.indexes + r.indexes,
      maps: s.maps + r.maps,
      total: s.total + r.total,
    }),
    {
      heap: 0,
      toast: 0,
      indexes: 0,
      maps: 0,
      total: 0,
    },
  );
  const header = ['table', 'heap', 'toast', 'indexes', 'fsm+vm', 'total'];
  const cells = [...rows, { table: 'all tables', ...sum }].map((r) => [
    r.table,
    String(r.heap),
    String(r.toast),
    String(r.indexes),
    String(r.maps),
    String(r.total),
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((row) => row[c].length)));
  const line = (row: string[]) => `| ${row.map((v, c) => (c === 0 ? v.padEnd(widths[c]) : v.padStart(widths[c]))).join(' | ')} |`;
  return [line(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...cells.map(line)].join('\n');
}
