import type { CatalogAdminRepository, CatalogRecord, CatalogRowScope, CatalogTableSpec } from '@lr/persistence';
import { stableJson } from './stable-json';

export type Row = CatalogRecord;

/** How the catalog writes one table: which columns identify a row and which it owns. */
export interface TableSpec extends CatalogTableSpec {
  /** Columns that identify a row within what is synced (for caps: the period within a scope). */
  match: readonly string[];
  /** Columns the catalog writes (besides match columns); compared to decide whether a row changed. */
  columns: readonly string[];
  money?: readonly string[];
}

export interface SyncCounts {
  created: number;
  updated: number;
  unchanged: number;
  removed: number;
}

export const emptyCounts = (): SyncCounts => ({ created: 0, updated: 0, unchanged: 0, removed: 0 });

/**
 * Makes the rows matched by `scope` equal to `desired`: inserts what is new,
 * updates only the columns that differ (and then `updated_at`), deletes what
 * the catalog no longer lists when `removeMissing`. A row that already equals
 * the file is not written at all, so applying the same file twice changes nothing.
 */
export async function syncRows(
  repo: CatalogAdminRepository,
  spec: TableSpec,
  scope: CatalogRowScope,
  desired: Row[],
  opts: { removeMissing: boolean; counts: SyncCounts; hasUpdatedAt?: boolean },
): Promise<void> {
  const existing = await repo.rows(spec, scope);
  const keyOf = (row: Row) => stableJson(spec.match.map((c) => normalize(spec, c, row[c])));
  const byKey = new Map(existing.map((row) => [keyOf(row), row]));
  const wanted = new Set(desired.map(keyOf));
  const counts = opts.counts;

  if (opts.removeMissing) {
    for (const [key, row] of byKey) {
      if (wanted.has(key)) continue;
      await repo.delete(spec, row);
      counts.removed += 1;
    }
  }

  for (const row of desired) {
    const current = byKey.get(keyOf(row));
    if (!current) {
      await repo.insert(spec, row);
      counts.created += 1;
      continue;
    }
    const changed = spec.columns.filter((c) => stableJson(normalize(spec, c, row[c])) !== stableJson(normalize(spec, c, current[c])));
    if (changed.length === 0) {
      counts.unchanged += 1;
      continue;
    }
    await repo.update(spec, current, Object.fromEntries(changed.map((c) => [c, row[c]])), { touchUpdatedAt: opts.hasUpdatedAt });
    counts.updated += 1;
  }
}

function normalize(spec: TableSpec, column: string, v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (spec.money?.includes(column)) return Number(v);
  return v;
}
