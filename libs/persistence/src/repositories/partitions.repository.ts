import type { DataSource } from 'typeorm';
import { addDays, dayOf, daySuffix, KEPT_DAY, LEGACY_DAY, PARTITIONED_TABLES, PartitionedTable } from '../partitions/partition-days';
import { createDayPartitions } from '../queries/day-partitions';
import { filled, run, Statement, statement } from '../queries/sql';

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

const PARTITIONS = statement(
  'partitionList',
  `SELECT parent.relname AS table, child.relname AS name, pg_get_expr(child.relpartbound, child.oid) AS bound,
              GREATEST(child.reltuples, 0)::bigint AS rows, pg_total_relation_size(child.oid) AS bytes
         FROM pg_inherits i
         JOIN pg_class parent ON parent.oid = i.inhparent
         JOIN pg_class child ON child.oid = i.inhrelid
        WHERE parent.relname = ANY($1::text[]) AND parent.relnamespace = current_schema()::regnamespace
        ORDER BY parent.relname, child.relname`,
);

/** Services start together: one creates the partitions at a time. */
const PARTITIONS_LOCK = statement('partitionsLock', `SELECT pg_advisory_xact_lock(hashtext('lead-router-partitions'))`);

/** Exact row counts of one partition family's day (the retention's dry run counts what it would drop). */
const DAY_ROWS = Object.fromEntries(
  PARTITIONED_TABLES.map((t) => [
    t,
    statement(`${t}DayRows`, `SELECT count(*)::bigint AS n FROM ${t} WHERE part_day >= $1::date AND part_day < $2::date`),
  ]),
) as Record<PartitionedTable, Statement<`${PartitionedTable}DayRows`>>;

/**
 * Searches of [from, to) that a lead names move to the kept partition, with
 * their partner calls and a copy of their templates, so that dropping the
 * day's partitions never loses a search a submit was made on. Driven by the
 * leads that can name them: created from the day before `from` (a search's
 * day is its id's, made before any submit of it; the day before absorbs clock
 * skew between hosts) to now. Not only within a day of the search: a submit
 * after its result expired is refused (`OFFER_UNAVAILABLE`) and stored, naming
 * its search, however late it comes. For the legacy partition: any time.
 */
const KEEP_SUBMITTED = statement(
  'keepSubmitted',
  `WITH kept AS (
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
              (SELECT count(*) FROM templates)::int AS templates`,
);

const SUBMITTED_COUNT = statement(
  'submittedCount',
  `SELECT count(DISTINCT s.id)::bigint AS n
         FROM leads l JOIN searches s ON s.id = l.search_id AND s.part_day >= $1::date AND s.part_day < $2::date
        WHERE l.search_id IS NOT NULL AND l.created_at >= $3::timestamptz AND l.created_at < $4::timestamptz`,
);

/** The leads that can name a search of the partition starting at `from` ([created from, created to)): see KEEP_SUBMITTED. */
function leadWindow(from: string): [string, string] {
  return from === LEGACY_DAY ? ['-infinity', 'infinity'] : [addDays(from, -1), 'infinity'];
}

/** How long a drop waits for its locks, how many times it tries, and the pause before try n (n x this). */
const DROP_LOCK_TIMEOUT_MS = 2000;
const DROP_TRIES = 5;
const DROP_RETRY_PAUSE_MS = 1000;
/** SQLSTATE lock_not_available: lock_timeout expired. */
const LOCK_NOT_AVAILABLE = '55P03';

/** A day or legacy partition of a partitioned table: the only tables drop() touches. */
const DROPPABLE = new RegExp(`^(${PARTITIONED_TABLES.join('|')})_(p\\d{8}|legacy)$`);

/** The newest search of the legacy partition (it is emptied once that is past the retention). */
const LEGACY_NEWEST = statement('legacyNewest', `SELECT max(created_at) AS newest FROM searches WHERE part_day = DATE '${LEGACY_DAY}'`);
const LEGACY_MESSAGES_NEWEST = statement(
  'legacyMessagesNewest',
  `SELECT max(processed_at) AS newest FROM processed_messages WHERE part_day = DATE '${LEGACY_DAY}'`,
);

/** Searches and the partitions they live in: sizes for `ops storage report`, bytes per search. */
const SEARCH_COUNT = statement('searchCount', `SELECT count(*)::bigint AS n FROM searches`);

/** One table of the schema as stored: a partitioned table counts its partitions' rows and bytes. */
export interface TableSize {
  table: string;
  partitioned: boolean;
  /** How many partitions it has (0 for a plain table). */
  partitions: number;
  /** Estimated rows (from the statistics). */
  rows: number;
  /** Bytes with its indexes and TOAST. */
  bytes: number;
}

/** Every table of the schema that is not itself a partition, largest first. */
const TABLE_SIZES = statement(
  'tableSizes',
  `SELECT c.relname AS table, c.relkind = 'p' AS partitioned, count(ch.oid)::int AS partitions,
              CASE WHEN c.relkind = 'p' THEN COALESCE(sum(GREATEST(ch.reltuples, 0)), 0) ELSE GREATEST(c.reltuples, 0) END::bigint AS rows,
              CASE WHEN c.relkind = 'p' THEN COALESCE(sum(pg_total_relation_size(ch.oid)), 0) ELSE pg_total_relation_size(c.oid) END::bigint AS bytes
         FROM pg_class c
         LEFT JOIN pg_inherits i ON i.inhparent = c.oid
         LEFT JOIN pg_class ch ON ch.oid = i.inhrelid
        WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
        GROUP BY c.oid, c.relname, c.relkind, c.reltuples
        ORDER BY bytes DESC, c.relname`,
);

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
      await run(em, PARTITIONS_LOCK);
      let created = 0;
      for (const day of daysAhead(now, ahead)) created += await createDayPartitions(em, { from: day, to: null, suffix: daySuffix(day) });
      return created;
    });
  }

  /** The days of [today - 1, today + ahead] of which some table has no partition: what ensureDays would create, changing nothing. */
  async missingDays(now: Date, ahead: number): Promise<string[]> {
    const have = new Set((await this.partitions()).map((p) => p.name));
    return daysAhead(now, ahead).filter((day) => PARTITIONED_TABLES.some((t) => !have.has(`${t}_${daySuffix(day)}`)));
  }

  async partitions(): Promise<PartitionInfo[]> {
    const rows = await run(this.ds, PARTITIONS, [[...PARTITIONED_TABLES]]);
    return rows.map((r) => ({
      table: filled(PARTITIONED_TABLES.find((t) => t === r.table) ?? null, 'table'),
      name: r.name,
      day: dayOfBound(filled(r.bound, 'bound')),
      rows: Number(r.rows ?? 0),
      bytes: Number(r.bytes ?? 0),
    }));
  }

  /** Exact rows of each partitioned table (or of `tables`) in [from, to). */
  async rowsOf(
    from: string,
    to: string,
    tables: readonly PartitionedTable[] = PARTITIONED_TABLES,
  ): Promise<Partial<Record<PartitionedTable, number>>> {
    const out: Partial<Record<PartitionedTable, number>> = {};
    for (const t of tables) out[t] = Number((await run(this.ds, DAY_ROWS[t], [from, to]))[0].n);
    return out;
  }

  /** Moves the searches of the partition [from, to) that a lead names into the kept partition (KEEP_SUBMITTED). */
  async keepSubmitted(from: string, to: string): Promise<{ searches: number; calls: number; templates: number }> {
    const [r] = await run(this.ds, KEEP_SUBMITTED, [from, to, ...leadWindow(from)]);
    return { searches: r.searches ?? 0, calls: r.calls ?? 0, templates: r.templates ?? 0 };
  }

  /** How many searches of [from, to) keepSubmitted would move (the retention's dry run), changing nothing. */
  async submittedCount(from: string, to: string): Promise<number> {
    const rows = await run(this.ds, SUBMITTED_COUNT, [from, to, ...leadWindow(from)]);
    return Number(rows[0].n);
  }

  /** The newest row of the legacy partitions: searches by creation, handled messages by handling. */
  async legacyNewest(): Promise<{ searches: Date | null; messages: Date | null }> {
    const s = await run(this.ds, LEGACY_NEWEST, []);
    const m = await run(this.ds, LEGACY_MESSAGES_NEWEST, []);
    return { searches: s[0]?.newest ?? null, messages: m[0]?.newest ?? null };
  }

  /**
   * Drops whole partitions by name (day partitions), or empties them
   * (`legacy`: it stays, as the home of ids that carry no time). Each in its
   * own short transaction: a drop holds its parent's lock for milliseconds.
   * It waits for that lock at most DROP_LOCK_TIMEOUT_MS: a drop waiting
   * behind a long query (a report) would hold every query on the table behind
   * it; it lets them go and tries again a little later, DROP_TRIES times.
   */
  async drop(names: readonly string[]): Promise<void> {
    for (const name of names) {
      if (!DROPPABLE.test(name)) throw new Error(`not a droppable partition: ${name}`);
      const sql = name.endsWith('_legacy') ? `TRUNCATE ${name}` : `DROP TABLE ${name}`;
      for (let attempt = 1; ; attempt++) {
        try {
          await this.ds.transaction(async (em) => {
            await em.query(`SET LOCAL lock_timeout = ${DROP_LOCK_TIMEOUT_MS}`);
            await em.query(sql);
          });
          break;
        } catch (e) {
          if ((e as { code?: string }).code !== LOCK_NOT_AVAILABLE || attempt >= DROP_TRIES) throw e;
          await new Promise((r) => setTimeout(r, attempt * DROP_RETRY_PAUSE_MS));
        }
      }
    }
  }

  /**
   * Every table of the schema with its size (`ops storage report`): a
   * partitioned table with the sum of its partitions. Rows are estimates
   * from the statistics (0 until the table is first analyzed).
   */
  async tables(): Promise<TableSize[]> {
    const rows = await run(this.ds, TABLE_SIZES, []);
    return rows.map((r) => ({
      table: filled(r.table, 'table'),
      partitioned: r.partitioned === true,
      partitions: r.partitions ?? 0,
      rows: Number(r.rows),
      bytes: Number(r.bytes),
    }));
  }

  /**
   * Runs `fn` while this process holds the retention lock (a session advisory
   * lock on a connection of its own), so that two retention runs never drop
   * or move the same rows at once. Answers `busy`, without running `fn`,
   * when another run holds it.
   */
  async exclusively<T>(fn: () => Promise<T>): Promise<T | 'busy'> {
    const runner = this.ds.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = (await runner.query(`SELECT pg_try_advisory_lock(hashtext('lead-router-retention')) AS locked`)) as Array<{
        locked: boolean;
      }>;
      if (!locked) return 'busy';
      try {
        return await fn();
      } finally {
        await runner.query(`SELECT pg_advisory_unlock(hashtext('lead-router-retention'))`).catch(() => undefined);
      }
    } finally {
      await runner.release();
    }
  }

  async searchCount(): Promise<number> {
    const rows = await run(this.ds, SEARCH_COUNT, []);
    return Number(rows[0].n);
  }
}

/** The days ensureDays keeps partitions for: [today - 1, today + ahead] (UTC). */
function daysAhead(now: Date, ahead: number): string[] {
  const today = dayOf(now);
  const days: string[] = [];
  for (let i = -1; i <= ahead; i++) days.push(addDays(today, i));
  return days;
}

/** `FOR VALUES FROM ('2026-11-26') TO ('2026-11-27')` -> its day, or kept / legacy. */
function dayOfBound(bound: string): string {
  const from = /FROM \('([0-9-]+)'\)/.exec(bound)?.[1] ?? bound;
  if (from === KEPT_DAY) return 'kept';
  if (from === LEGACY_DAY) return 'legacy';
  return from;
}
