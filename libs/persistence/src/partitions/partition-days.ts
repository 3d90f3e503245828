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
