/**
 * Day partitions (docs/storage.md). `searches`, `result_templates`,
 * `search_partner_calls` and `processed_messages` are partitioned by
 * `part_day` (UTC). Two partitions are not days: `kept` holds the searches
 * kept past the search retention (a lead names them), `legacy` those stored
 * before the day layout or with an id that carries no time.
 */
export const KEPT_DAY = '1970-01-01';
export const LEGACY_DAY = '1970-01-02';
/** The end (exclusive) of the legacy partition. */
export const LEGACY_END = '1970-01-03';

/** How many days ahead the day partitions exist (created by every service at start and daily, and by the retention run). */
export const PARTITION_DAYS_AHEAD = 7;

export const PARTITIONED_TABLES = ['searches', 'result_templates', 'search_partner_calls', 'processed_messages'] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

/** The UTC day of a time, as `YYYY-MM-DD`. */
export function dayOf(t: Date): string {
  return t.toISOString().slice(0, 10);
}

/** The day `n` days after `day` (`YYYY-MM-DD`). */
export function addDays(day: string, n: number): string {
  return dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000));
}

/** A day partition's suffix: `p20261126`. */
export function daySuffix(day: string): string {
  return `p${day.replace(/-/g, '')}`;
}

/**
 * The partitions a search (its id in `idSql`) can be in: its id's day, or
 * kept. A lookup by id with it reads one or two partitions, not all.
 */
export function searchDays(alias: string, idSql: string): string {
  return `${alias}.part_day IN (lr_id_day(${idSql}), DATE '${KEPT_DAY}')`;
}

/**
 * The day partition of a search id, as `lr_id_day` computes it in
 * PostgreSQL: the UTC day of a UUIDv7's time, else the legacy partition.
 */
export function idDay(id: string): string {
  if (id.length !== 36 || id[14] !== '7') return LEGACY_DAY;
  const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  return Number.isFinite(ms) ? dayOf(new Date(ms)) : LEGACY_DAY;
}

/** The partitions of one day named in a statement's text (perDay). */
export interface DayPartitions {
  /** `DATE 'YYYY-MM-DD'`: the day itself. */
  readonly day: string;
  /** `<alias>.part_day IN (<the day>, <kept>)`: where a search of that day is, or its rows. */
  days(alias: string): string;
}

/** How many days' statements a perDay statement keeps made (today's, yesterday's, and a few more for late partner answers). */
const DAYS_KEPT = 4;

/**
 * A statement whose text names the day partitions of the search it is about,
 * made once per day (`make` receives the day; the caller passes idDay(id)).
 * Why in the text and not a parameter: the services plan their statements
 * once, generically, and a generic plan prunes partitions only when it
 * runs, after PostgreSQL has locked every partition of every table it
 * names (about 200 locks for a lookup by id with a month of day
 * partitions, most of them past the fast path, so that concurrent searches
 * queue on the lock manager). A day in the text is pruned when the
 * statement is planned: it locks the day's partition and the kept one.
 */
export function perDay<S>(make: (on: DayPartitions) => S): (day: string) => S {
  const made = new Map<string, S>();
  return (day: string): S => {
    let s = made.get(day);
    if (s === undefined) {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new Error(`not a day: ${day}`);
      const literal = `DATE '${day}'`;
      s = make({ day: literal, days: (alias) => `${alias}.part_day IN (${literal}, DATE '${KEPT_DAY}')` });
      made.set(day, s);
      if (made.size > DAYS_KEPT) made.delete(made.keys().next().value as string);
    }
    return s;
  };
}
