import type { KnownCatalogRefs } from '@lr/domain';
import { DataSource } from 'typeorm';
import { knownCatalogRefs } from '../queries/catalog-refs';
import type { Queryable } from '../queries/queryable';
import { run, statement } from '../queries/sql';

/**
 * The writes of `ops catalog apply` (CATALOG.md): the catalog tables
 * (`affiliates`, `schools`, `partners`, `offers`, `programs`, `questions`,
 * `campaigns`, `campaign_offers`, `caps`) row by row, and what the database
 * already holds that a catalog file may refer to. Which rows to insert,
 * update or delete is decided by the caller (apps/ops, catalog/sync-rows.ts);
 * the statements are written here, from a table's description.
 */

/** A catalog row as stored or as the file wants it: column name to value. */
export type CatalogRecord = Record<string, unknown>;

/** How one catalog table is written. */
export interface CatalogTableSpec {
  table: string;
  /** Columns that locate a row for UPDATE/DELETE (the primary key). */
  primaryKey: readonly string[];
  /** jsonb columns: written as JSON text, cast to jsonb. */
  json?: readonly string[];
}

/**
 * The rows a sync covers: each column equals its value, IS NULL for null, or
 * is any of an array's values (all ANDed; the array's element type is the
 * column's, as PostgreSQL infers it).
 */
export type CatalogRowScope = Readonly<Record<string, string | number | boolean | null | readonly string[]>>;

const APPLY_LOCK = 'lead-router-catalog-apply';

const APPLY_LOCK_STATEMENT = statement('catalogApplyLock', 'SELECT pg_advisory_xact_lock(hashtext($1))');

const CAMPAIGN_CAPS_OUTSIDE = statement(
  'campaignCapsOutside',
  `SELECT count(*) AS n FROM caps WHERE campaign_id = $1 AND NOT (offer_id = ANY($2::uuid[]))`,
);

/**
 * The row statements below are made per call from a table's description
 * (CatalogTableSpec): they are not declared statements, and their rows are
 * any table's (CatalogRecord).
 */
const q = (name: string) => `"${name}"`;

export class CatalogAdminRepository {
  constructor(private readonly db: Queryable) {}

  /**
   * Runs `work` in one transaction under the catalog's advisory lock: two
   * applies never interleave, and what `work` reads is what it writes to.
   * Everything is rolled back when `work` throws.
   */
  static underApplyLock<T>(ds: DataSource, work: (repo: CatalogAdminRepository) => Promise<T>): Promise<T> {
    return ds.transaction(async (em) => {
      await run(em, APPLY_LOCK_STATEMENT, [APPLY_LOCK]);
      return work(new CatalogAdminRepository(em));
    });
  }

  /** What the database already holds that a catalog file may refer to without defining it (knownCatalogRefs). */
  knownRefs(): Promise<KnownCatalogRefs> {
    return knownCatalogRefs(this.db);
  }

  /** The table's rows in `scope`, every column. */
  rows(spec: CatalogTableSpec, scope: CatalogRowScope): Promise<CatalogRecord[]> {
    const params: unknown[] = [];
    const where = Object.entries(scope).map(([column, value]) => {
      if (value === null) return `${q(column)} IS NULL`;
      params.push(value);
      return Array.isArray(value) ? `${q(column)} = ANY($${params.length})` : `${q(column)} = $${params.length}`;
    });
    return this.db.query(`SELECT * FROM ${q(spec.table)} WHERE ${where.length ? where.join(' AND ') : 'true'}`, params);
  }

  /** Inserts the row, its columns as given. */
  async insert(spec: CatalogTableSpec, row: CatalogRecord): Promise<void> {
    const cols = Object.keys(row);
    const values = cols.map((c, i) => (isJson(spec, c) ? `$${i + 1}::jsonb` : `$${i + 1}`));
    await this.db.query(
      `INSERT INTO ${q(spec.table)} (${cols.map(q).join(', ')}) VALUES (${values.join(', ')})`,
      cols.map((c) => toParam(spec, c, row[c])),
    );
  }

  /** Sets the columns of `changes` on the row whose primary key is `current`'s, and `updated_at` unless `touchUpdatedAt` is false. */
  async update(
    spec: CatalogTableSpec,
    current: CatalogRecord,
    changes: CatalogRecord,
    opts: { touchUpdatedAt?: boolean } = {},
  ): Promise<void> {
    const changed = Object.keys(changes);
    const sets = changed.map((c, i) => `${q(c)} = ${isJson(spec, c) ? `$${i + 1}::jsonb` : `$${i + 1}`}`);
    if (opts.touchUpdatedAt !== false) sets.push(`"updated_at" = now()`);
    const where = spec.primaryKey.map((c, i) => `${q(c)} = $${changed.length + i + 1}`).join(' AND ');
    await this.db.query(`UPDATE ${q(spec.table)} SET ${sets.join(', ')} WHERE ${where}`, [
      ...changed.map((c) => toParam(spec, c, changes[c])),
      ...spec.primaryKey.map((c) => current[c]),
    ]);
  }

  /** Deletes the row whose primary key is `current`'s. */
  async delete(spec: CatalogTableSpec, current: CatalogRecord): Promise<void> {
    const where = spec.primaryKey.map((c, i) => `${q(c)} = $${i + 1}`).join(' AND ');
    await this.db.query(
      `DELETE FROM ${q(spec.table)} WHERE ${where}`,
      spec.primaryKey.map((c) => current[c]),
    );
  }

  /** How many caps of the campaign are on offers other than `offerIds` (removing those campaign offers removes the caps too: ON DELETE CASCADE). */
  async countCampaignCapsOutside(campaignId: string, offerIds: readonly string[]): Promise<number> {
    const rows = await run(this.db, CAMPAIGN_CAPS_OUTSIDE, [campaignId, offerIds]);
    return Number(rows[0]?.n ?? 0);
  }
}

function isJson(spec: CatalogTableSpec, column: string): boolean {
  return spec.json?.includes(column) ?? false;
}

/** A value as a statement parameter: null for none, JSON text for a jsonb column. */
function toParam(spec: CatalogTableSpec, column: string, v: unknown): unknown {
  if (v === undefined || v === null) return null;
  return isJson(spec, column) ? JSON.stringify(v) : v;
}
