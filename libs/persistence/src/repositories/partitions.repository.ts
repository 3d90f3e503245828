import type { DataSource } from 'typeorm';
import { addDays, dayOf, daySuffix, KEPT_DAY, LEGACY_DAY, PARTITIONED_TABLES, PartitionedTable } from '../partitions/partition-days';
import { run, statement } from '../queries/sql';

interface Executes {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

/**
 * Creates the partition `<table>_<suffix>` of every partitioned table for
 * [from, to) (`to` null: the day after `from`), where missing. The migration
 * and the partition keeper share it. Answers how many it created.
 */
export async function createDayPartitions(q: Executes, p: { from: string; to: string | null; suffix: string }): Promise<number> {
  const to = p.to ?? addDays(p.from, 1);
  let created = 0;
  for (const table of PARTITIONED_TABLES) {
    const name = `${table}_${p.suffix}`;
    const exists = (await q.query(`SELECT 1 FROM pg_class WHERE relname = $1 AND relnamespace = current_schema()::regnamespace`, [name])) as unknown[];
    if (exists.length > 0) continue;
    await q.query(`CREATE TABLE ${name} PARTITION OF ${table} FOR VALUES FROM ('${p.from}') TO ('${to}')`);
    created++;
  }
  return created;
}

/** One partition as stored: its table, its day (or kept / legacy), its size. */
export interface PartitionInfo {
  table: PartitionedTable;
  name: string;
  /** `YYYY-MM-DD`, or 'kept' / 'legacy'. */
  day: string;
  /** Estimated rows (from the statistics; exact after ANALYZE). */
  rows: number;
  /** Bytes of the partition with its indexes and TOAST. */
  bytes: number;
}

const PARTITIONS = statement(`SELECT parent.relname AS table, child.relname AS name, pg_get_expr(child.relpartbound, child.oid) AS bound,
              GREATEST(child.reltuples, 0)::bigint AS rows, pg_total_relation_size(child.oid) AS bytes
         FROM pg_inherits i
         JOIN pg_class parent ON parent.oid = i.inhparent
         JOIN pg_class child ON child.oid = i.inhrelid
        WHERE parent.relname = ANY($1::text[]) AND parent.relnamespace = current_schema()::regnamespace
        ORDER BY parent.relname, child.relname`);

/** Exact row counts of one partition family's day (the retention's dry run counts what it would drop). */
const DAY_ROWS = (table: PartitionedTable) => `SELECT count(*)::bigint AS n FROM ${table} WHERE part_day >= $1::date AND part_day < $2::date`;

/**
 * Searches of [from, to) that a lead names move to the kept partition, with
 * their partner calls and a copy of their templates, so that dropping the
 * day's partitions never loses a search a submit was made on. Driven by the
 * leads submitted in the window the searches' results could be submitted in
 * ([from, to + 2 days) for day partitions: results expire within a day,
 * catalog `result_ttl_seconds` <= 86,400; any time for the legacy partition).
 */
const KEEP_SUBMITTED = statement(`WITH kept AS (
         SELECT DISTINCT s.id
           FROM leads l JOIN searches s ON s.id = l.search_id AND s.part_day >= $1::date AND s.part_day < $2::date
          WHERE l.search_id IS NOT NULL AND l.created_at >= $3::timestamptz AND l.created_at < $4::timestamptz
       ), templates AS (
         INSERT INTO result_templates (part_day, digest, offer_id, payout, body)
         SELECT DISTINCT ON (t.digest) DATE '${KEPT_DAY}', t.digest, t.offer_id, t.payout, t.body
           FROM searches s CROSS JOIN LATERAL unnest(s.result_templates) AS d(digest)
           JOIN result_templates t ON t.part_day = s.part_day AND t.digest = d.digest
          WHERE s.part_day >= $1::date AND s.part_day < $2::date AND s.id IN (SELECT id FROM kept)
         ON CONFLICT DO NOTHING
         RETURNING 1
       ), calls AS (
         UPDATE search_partner_calls c SET part_day = DATE '${KEPT_DAY}'
          WHERE c.part_day >= $1::date AND c.part_day < $2::date AND c.search_id IN (SELECT id FROM kept)
         RETURNING 1
       ), moved AS (
         UPDATE searches s SET part_day = DATE '${KEPT_DAY}'
          WHERE s.part_day >= $1::date AND s.part_day < $2::date AND s.id IN (SELECT id FROM kept)
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM moved)::int AS searches, (SELECT count(*) FROM calls)::int AS calls,
              (SELECT count(*) FROM templates)::int AS templates`);

/** The newest search of the legacy partition (it is emptied once that is past the retention). */
const LEGACY_NEWEST = statement(`SELECT max(created_at) AS newest FROM searches WHERE part_day = DATE '${LEGACY_DAY}'`);
const LEGACY_MESSAGES_NEWEST = statement(`SELECT max(processed_at) AS newest FROM processed_messages WHERE part_day = DATE '${LEGACY_DAY}'`);

/** Searches and the partitions they live in: sizes for `ops storage report`, bytes per search. */
const SEARCH_COUNT = statement(`SELECT count(*)::bigint AS n FROM searches`);

/**
 * The day partitions (`part_day`, UTC) of `searches`, `result_templates`,
 * `search_partner_calls` and `processed_messages` (docs/storage.md): created
 * ahead by every service at start and daily, listed with their sizes, and
 * dropped whole by the retention run.
 */
export class PartitionStore {
  constructor(private readonly ds: DataSource) {}

  /**
   * Creates the day partitions of [today - 1, today + ahead] that are
   * missing, under an advisory lock (services start together). Answers how
   * many it created.
   */
  async ensureDays(now: Date, ahead: number): Promise<number> {
    return this.ds.transaction(async (em) => {
      await em.query(`SELECT pg_advisory_xact_lock(hashtext('lead-router-partitions'))`);
      let created = 0;
      const today = dayOf(now);
      for (let i = -1; i <= ahead; i++) {
        const day = addDays(today, i);
        created += await createDayPartitions(em, { from: day, to: null, suffix: daySuffix(day) });
      }
      return created;
    });
  }

  async partitions(): Promise<PartitionInfo[]> {
    const rows: Array<{ table: PartitionedTable; name: string; bound: string; rows: string; bytes: string }> = await run(this.ds, PARTITIONS, [[...PARTITIONED_TABLES]]);
    return rows.map((r) => ({ table: r.table, name: r.name, day: dayOfBound(r.bound), rows: Number(r.rows), bytes: Number(r.bytes) }));
  }

  /** Exact rows of each partitioned table in [from, to). */
  async rowsOf(from: string, to: string): Promise<Record<PartitionedTable, number>> {
    const out = {} as Record<PartitionedTable, number>;
    for (const t of PARTITIONED_TABLES) out[t] = Number(((await this.ds.query(DAY_ROWS(t), [from, to])) as Array<{ n: string }>)[0].n);
    return out;
  }

  /** Moves the searches of the partition [from, to) that a lead names into the kept partition (KEEP_SUBMITTED). */
  async keepSubmitted(from: string, to: string): Promise<{ searches: number; calls: number; templates: number }> {
    const legacy = from === LEGACY_DAY;
    const leadsFrom = legacy ? '-infinity' : from;
    const leadsTo = legacy ? 'infinity' : addDays(to, 2);
    const rows: Array<{ searches: number; calls: number; templates: number }> = await run(this.ds, KEEP_SUBMITTED, [from, to, leadsFrom, leadsTo]);
    return rows[0];
  }

  /** The newest row of the legacy partitions: searches by creation, handled messages by handling. */
  async legacyNewest(): Promise<{ searches: Date | null; messages: Date | null }> {
    const s: Array<{ newest: Date | null }> = await run(this.ds, LEGACY_NEWEST, []);
    const m: Array<{ newest: Date | null }> = await run(this.ds, LEGACY_MESSAGES_NEWEST, []);
    return { searches: s[0]?.newest ?? null, messages: m[0]?.newest ?? null };
  }

  /**
   * Drops whole partitions by name (day partitions), or empties them
   * (`legacy`: it stays, as the home of ids that carry no time). Each in its
   * own short transaction: a drop holds its parent's lock for milliseconds.
   */
  async drop(names: readonly string[]): Promise<void> {
    for (const name of names) {
      if (!/^[a-z_]+_(p\d{8}|legacy)$/.test(name)) throw new Error(`not a droppable partition: ${name}`);
      await this.ds.query(name.endsWith('_legacy') ? `TRUNCATE ${name}` : `DROP TABLE ${name}`);
    }
  }

  async searchCount(): Promise<number> {
    const rows: Array<{ n: string }> = await run(this.ds, SEARCH_COUNT, []);
    return Number(rows[0].n);
  }
}

/** `FOR VALUES FROM ('2026-11-26') TO ('2026-11-27')` -> its day, or kept / legacy. */
function dayOfBound(bound: string): string {
  const from = /FROM \('([0-9-]+)'\)/.exec(bound)?.[1] ?? bound;
  if (from === KEPT_DAY) return 'kept';
  if (from === LEGACY_DAY) return 'legacy';
  return from;
}

