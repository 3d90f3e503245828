import { EntityManager } from 'typeorm';
import { stableJson } from './stable-json';

export type Row = Record<string, unknown>;

/** How the catalog writes one table: which columns identify a row and which it owns. */
export interface TableSpec {
  table: string;
  /** Columns that identify a row within what is synced (for caps: the period within a scope). */
  match: readonly string[];
  /** Columns that locate a row for UPDATE/DELETE (the primary key). */
  primaryKey: readonly string[];
  /** Columns the catalog writes (besides match columns); compared to decide whether a row changed. */
  columns: readonly string[];
  json?: readonly string[];
  money?: readonly string[];
}

export interface SyncCounts {
  created: number;
  updated: number;
  unchanged: number;
  removed: number;
}

export const emptyCounts = (): SyncCounts => ({ created: 0, updated: 0, unchanged: 0, removed: 0 });

const q = (name: string) => `"${name}"`;

/**
 * Makes the rows matched by `scope` equal to `desired`: inserts what is new,
 * updates only the columns that differ (and then `updated_at`), deletes what
 * the catalog no longer lists when `removeMissing`. A row that already equals
 * the file is not written at all, so applying the same file twice changes nothing.
 */
export async function syncRows(
  em: EntityManager,
  spec: TableSpec,
  scope: { where: string; params: unknown[] },
  desired: Row[],
  opts: { removeMissing: boolean; counts: SyncCounts; hasUpdatedAt?: boolean },
): Promise<void> {
  const existing: Row[] = await em.query(`SELECT * FROM ${q(spec.table)} WHERE ${scope.where}`, scope.params);
  const keyOf = (row: Row) => stableJson(spec.match.map((c) => normalize(spec, c, row[c])));
  const byKey = new Map(existing.map((row) => [keyOf(row), row]));
  const wanted = new Set(desired.map(keyOf));
  const counts = opts.counts;

  if (opts.removeMissing) {
    for (const [key, row] of byKey) {
      if (wanted.has(key)) continue;
      const where = spec.primaryKey.map((c, i) => `${q(c)} = $${i + 1}`).join(' AND ');
      await em.query(`DELETE FROM ${q(spec.table)} WHERE ${where}`, spec.primaryKey.map((c) => row[c]));
      counts.removed += 1;
    }
  }

  for (const row of desired) {
    const current = byKey.get(keyOf(row));
    if (!current) {
      const cols = Object.keys(row);
      const values = cols.map((c, i) => (isJson(spec, c) ? `$${i + 1}::jsonb` : `$${i + 1}`));
      await em.query(
        `INSERT INTO ${q(spec.table)} (${cols.map(q).join(', ')}) VALUES (${values.join(', ')})`,
        cols.map((c) => toParam(spec, c, row[c])),
      );
      counts.created += 1;
      continue;
    }
    const changed = spec.columns.filter((c) => stableJson(normalize(spec, c, row[c])) !== stableJson(normalize(spec, c, current[c])));
    if (changed.length === 0) {
      counts.unchanged += 1;
      continue;
    }
    const sets = changed.map((c, i) => `${q(c)} = ${isJson(spec, c) ? `$${i + 1}::jsonb` : `$${i + 1}`}`);
    if (opts.hasUpdatedAt !== false) sets.push(`"updated_at" = now()`);
    const where = spec.primaryKey.map((c, i) => `${q(c)} = $${changed.length + i + 1}`).join(' AND ');
    await em.query(`UPDATE ${q(spec.table)} SET ${sets.join(', ')} WHERE ${where}`, [
      ...changed.map((c) => toParam(spec, c, row[c])),
      ...spec.primaryKey.map((c) => current[c]),
    ]);
    counts.updated += 1;
  }
}

function isJson(spec: TableSpec, column: string): boolean {
  return spec.json?.includes(column) ?? false;
}

function normalize(spec: TableSpec, column: string, v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (spec.money?.includes(column)) return Number(v);
  return v;
}

function toParam(spec: TableSpec, column: string, v: unknown): unknown {
  if (v === undefined || v === null) return null;
  return isJson(spec, column) ? JSON.stringify(v) : v;
}
