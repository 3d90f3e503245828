/**
 * How long the high-volume records are kept (docs/runbooks/retention.md).
 * PostgreSQL stores them in day partitions (`part_day`, UTC) and the retention
 * run drops whole partitions: this decides which, from the partitions there
 * are, today's UTC day and the settings. Never dropped here: the `kept`
 * partition (searches a lead names), days not yet past their window, and every
 * table that is not partitioned (leads, decisions, sales, payouts, consent
 * evidence, dedupe keys: kept at least 5 years, never touched by retention).
 */

/**
 * Searches, with the result templates and partner calls of their day.
 * `minimumDays` 3: a result can be submitted up to a day after its search
 * (a result expires within a day: catalog `result_ttl_seconds` <= 86,400),
 * and the submit's search must survive until that submit is stored and the
 * search moved to `kept`; 3 whole days leave room for a submit still queued or
 * replayed from a dead-letter queue.
 */
export const SEARCH_RETENTION = { defaultDays: 30, minimumDays: 3 } as const;

/**
 * Handled-message records (`processed_messages`): a copy of a message handled
 * before finds its record and has no second effect. `minimumDays` 2: longer
 * than the longest redelivery horizon. A copy comes back within seconds (an
 * unacked message after a crash) or a minute (a retry's back-off,
 * `AMQP_RETRY_DELAYS_MS`); the latest is a copy parked in a dead-letter queue
 * and replayed, which the critical dead-letter alert asks for after 5
 * minutes: a replay is expected within hours, and must come within the window.
 */
export const MESSAGE_RETENTION = { defaultDays: 30, minimumDays: 2 } as const;

export interface RetentionSettings {
  /** Days a search (and its day's templates and partner calls) is kept: `RETENTION_SEARCH_DAYS`. */
  searchDays: number;
  /** Days a handled-message record is kept: `RETENTION_MESSAGE_DAYS`. */
  messageDays: number;
}

export type RetainedFamily = 'searches' | 'messages';

/**
 * The partitioned tables of each family, in the order their partitions of a
 * day are dropped: searches before what they point at (partner calls, then
 * the templates their results are built from), so that no remaining search
 * ever points at a dropped template. A table named here only is dropped.
 */
export const RETAINED_TABLES: Readonly<Record<RetainedFamily, readonly string[]>> = {
  searches: ['searches', 'search_partner_calls', 'result_templates'],
  messages: ['processed_messages'],
};

/** One stored partition: its table, its name and its day (`YYYY-MM-DD`), or `kept` / `legacy`. */
export interface StoredPartition {
  table: string;
  name: string;
  day: string;
}

/** The partitions of one family and one day (or the legacy partition) that are past their window, in drop order. */
export interface ExpiredDay {
  family: RetainedFamily;
  /** `YYYY-MM-DD`, or `legacy`. */
  day: string;
  partitions: StoredPartition[];
}

export interface RetentionInput {
  /** Today's UTC day, `YYYY-MM-DD`. */
  today: string;
  settings: RetentionSettings;
  partitions: readonly StoredPartition[];
  /**
   * The newest row of each family's legacy partition (rows stored before the
   * day layout, or with an id that carries no time): searches by creation,
   * messages by handling; null when it is empty.
   */
  legacyNewest: { searches: Date | null; messages: Date | null };
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** The first day a family keeps: a day partition D is expired when D < today - days. */
export function retentionCutoff(today: string, days: number): string {
  const t = Date.parse(`${today}T00:00:00Z`);
  if (!DAY.test(today) || Number.isNaN(t)) throw new RangeError(`today must be a UTC day YYYY-MM-DD, got ${JSON.stringify(today)}`);
  return new Date(t - days * DAY_MS).toISOString().slice(0, 10);
}

/** Settings below a family's minimum (or not whole days) are refused: they could lose a search a submit needs, or a redelivery's record. */
export function checkRetentionSettings(settings: RetentionSettings): void {
  const check = (name: string, days: number, minimum: number) => {
    if (!Number.isInteger(days) || days < minimum)
      throw new RangeError(`${name} must be a whole number of days from ${minimum}, got ${days}`);
  };
  check('searchDays', settings.searchDays, SEARCH_RETENTION.minimumDays);
  check('messageDays', settings.messageDays, MESSAGE_RETENTION.minimumDays);
}

/**
 * The partitions to drop now, oldest day first, searches before messages on
 * the same day. A day partition goes once its day is before the cutoff; the
 * legacy partition once its newest row's day is (an empty one is left alone);
 * the kept partition, today's and future days never.
 */
export function expiredPartitions(input: RetentionInput): ExpiredDay[] {
  checkRetentionSettings(input.settings);
  const out: ExpiredDay[] = [];
  for (const family of ['searches', 'messages'] as const) {
    const days = family === 'searches' ? input.settings.searchDays : input.settings.messageDays;
    const cutoff = retentionCutoff(input.today, days);
    const tables = RETAINED_TABLES[family];
    const ofFamily = input.partitions.filter((p) => tables.includes(p.table));
    const newestLegacy = input.legacyNewest[family];
    const expired = (day: string) =>
      day === 'legacy' ? newestLegacy !== null && newestLegacy.toISOString().slice(0, 10) < cutoff : DAY.test(day) && day < cutoff;
    const byDay = new Map<string, StoredPartition[]>();
    for (const p of ofFamily) if (expired(p.day)) byDay.set(p.day, [...(byDay.get(p.day) ?? []), p]);
    for (const [day, partitions] of byDay) {
      partitions.sort((a, b) => tables.indexOf(a.table) - tables.indexOf(b.table));
      out.push({ family, day, partitions });
    }
  }
  // 'legacy' sorts after every day: its rows may be as new as the cutoff allows, and it is emptied, not dropped.
  const order = (d: ExpiredDay) => (d.day === 'legacy' ? '9999-12-31' : d.day);
  return out.sort((a, b) => order(a).localeCompare(order(b)) || (a.family === b.family ? 0 : a.family === 'searches' ? -1 : 1));
}
