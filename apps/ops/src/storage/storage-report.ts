import { PartitionedTable, PARTITIONED_TABLES, PartitionInfo, PartitionStore, TableSize } from '@lr/persistence';

/** The tables a search is stored in: the search itself, its partner calls, the templates of its results. */
const SEARCH_TABLES: readonly PartitionedTable[] = ['searches', 'result_templates', 'search_partner_calls'];

export interface StorageReport {
  /** Every table of the schema, largest first (a partitioned table with its partitions' sum). */
  tables: TableSize[];
  /** The partitions of each partitioned table, by name (kept, legacy, then the days). */
  partitions: Record<PartitionedTable, PartitionInfo[]>;
  totalBytes: number;
  /** Searches stored, counted exactly. */
  searches: number;
  /** Bytes of searches, result_templates and search_partner_calls. */
  searchBytes: number;
  /** searchBytes / searches; null with no search. */
  bytesPerSearch: number | null;
}

/** `ops storage report`: what the database holds, per table and per partition. */
export async function storageReport(store: PartitionStore): Promise<StorageReport> {
  const tables = await store.tables();
  const listed = await store.partitions();
  const partitions = Object.fromEntries(PARTITIONED_TABLES.map((t) => [t, listed.filter((p) => p.table === t)])) as Record<
    PartitionedTable,
    PartitionInfo[]
  >;
  const searches = await store.searchCount();
  const searchBytes = tables.filter((t) => (SEARCH_TABLES as readonly string[]).includes(t.table)).reduce((n, t) => n + t.bytes, 0);
  return {
    tables,
    partitions,
    totalBytes: tables.reduce((n, t) => n + t.bytes, 0),
    searches,
    searchBytes,
    bytesPerSearch: searches > 0 ? Math.round(searchBytes / searches) : null,
  };
}
