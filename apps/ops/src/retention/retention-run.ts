import { ExpiredDay, expiredPartitions, RetainedFamily, retentionCutoff, RetentionSettings } from '@lr/domain';
import {
  addDays,
  dayOf,
  LEGACY_DAY,
  LEGACY_END,
  PARTITION_DAYS_AHEAD,
  PartitionedTable,
  PartitionInfo,
  PartitionStore,
  SealedContacts,
} from '@lr/persistence';

/** The data keys of a dropped day's sealed searches: read from the day, destroyed in the key store (ContactSealer). */
export interface SearchDataKeys {
  sealed: SealedContacts;
  keys: { destroy(keyIds: readonly string[]): Promise<number> };
}

/** Data keys read and destroyed per statement. */
const KEY_BATCH = 1000;

/** One partition the run dropped (or would drop): its rows, counted exactly just before, its size and how long the drop took. */
export interface DroppedPartition {
  table: PartitionedTable;
  name: string;
  rows: number;
  bytes: number;
  /** The drop's own time; null in a dry run. */
  ms: number | null;
}

/** What was kept of a search day before it was dropped: the searches a lead names, moved to the kept partition. */
export interface KeptSearches {
  searches: number;
  /** Their partner calls and templates, moved or copied with them; null in a dry run (only the searches are counted). */
  calls: number | null;
  templates: number | null;
}

export interface RetentionDayReport {
  family: RetainedFamily;
  /** `YYYY-MM-DD`, or `legacy`. */
  day: string;
  /** Searches only; null for handled messages. */
  kept: KeptSearches | null;
  /**
   * Searches only: the data keys of the day's sealed searches destroyed before
   * its partitions were dropped (the searches kept for a lead keep theirs);
   * null for handled messages and in a dry run.
   */
  dataKeys: number | null;
  partitions: DroppedPartition[];
}

export interface RetentionReport {
  dryRun: boolean;
  today: string;
  settings: RetentionSettings;
  /** The first day each family keeps: day partitions before it go. */
  cutoffs: { searches: string; messages: string };
  /** The days of [today - 1, today + PARTITION_DAYS_AHEAD] that lacked a partition, and how many partitions the run created (0 in a dry run). */
  ahead: { missingDays: string[]; created: number };
  days: RetentionDayReport[];
}

/** Where the run is: the partition it has just dropped (or, in a dry run, counted), the `index`-th of `total`. */
export interface RetentionStep {
  index: number;
  total: number;
  partition: DroppedPartition;
  dryRun: boolean;
}

/** A run that failed after it began changing things: what it had done, and why it stopped. */
export class RetentionInterruptedError extends Error {
  constructor(
    readonly report: RetentionReport,
    readonly at: string,
    cause: unknown,
  ) {
    super(`stopped at ${at}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/**
 * `ops retention run` (docs/runbooks/retention.md): creates the partitions
 * ahead, then for each day past its window, oldest first, moves the searches
 * a lead names into the kept partition and drops that day's partitions of
 * searches, partner calls and templates (destroying the data keys of its
 * sealed searches first); drops the handled-message days past
 * theirs; empties the legacy partitions once their newest row is past the
 * window. What goes is decided by libs/domain (expiredPartitions). A dry run
 * counts the same and changes nothing, not even the kept partition.
 * The caller holds the retention lock (PartitionStore.exclusively).
 */
export async function runRetention(
  store: PartitionStore,
  opts: { now: Date; settings: RetentionSettings; dryRun: boolean; dataKeys: SearchDataKeys; onStep?: (step: RetentionStep) => void },
): Promise<RetentionReport> {
  const today = dayOf(opts.now);
  const report: RetentionReport = {
    dryRun: opts.dryRun,
    today,
    settings: opts.settings,
    cutoffs: { searches: retentionCutoff(today, opts.settings.searchDays), messages: retentionCutoff(today, opts.settings.messageDays) },
    ahead: { missingDays: await store.missingDays(opts.now, PARTITION_DAYS_AHEAD), created: 0 },
    days: [],
  };
  if (!opts.dryRun) report.ahead.created = await store.ensureDays(opts.now, PARTITION_DAYS_AHEAD);

  const stored = await store.partitions();
  const byName = new Map<string, PartitionInfo>(stored.map((p) => [p.name, p]));
  const plan = expiredPartitions({ today, settings: opts.settings, partitions: stored, legacyNewest: await store.legacyNewest() });
  const total = plan.reduce((n, d) => n + d.partitions.length, 0);
  let index = 0;
  let at = 'the plan';
  try {
    for (const expired of plan) {
      const [from, to] = bounds(expired);
      at = `${expired.family} ${expired.day}`;
      const dayReport: RetentionDayReport = { family: expired.family, day: expired.day, kept: null, dataKeys: null, partitions: [] };
      report.days.push(dayReport);
      if (expired.family === 'searches') {
        dayReport.kept = opts.dryRun
          ? { searches: await store.submittedCount(from, to), calls: null, templates: null }
          : await store.keepSubmitted(from, to);
        // After the kept searches moved out, before the drop: a run cut between the two destroys the rest next time.
        if (!opts.dryRun) dayReport.dataKeys = await destroySearchKeys(opts.dataKeys, from, to);
      }
      const tables = expired.partitions.map((p) => byName.get(p.name)!.table);
      const rows = await store.rowsOf(from, to, tables);
      for (const p of expired.partitions) {
        const info = byName.get(p.name)!;
        const partition: DroppedPartition = {
          table: info.table,
          name: info.name,
          rows: rows[info.table] ?? 0,
          bytes: info.bytes,
          ms: null,
        };
        at = partition.name;
        index++;
        if (!opts.dryRun) {
          const started = process.hrtime.bigint();
          await store.drop([partition.name]);
          partition.ms = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
        }
        dayReport.partitions.push(partition);
        opts.onStep?.({ index, total, partition, dryRun: opts.dryRun });
      }
    }
  } catch (e) {
    throw new RetentionInterruptedError(report, at, e);
  }
  return report;
}

/**
 * Destroys the data keys of the sealed searches left in [from, to), in
 * batches, so that the key store does not keep the keys of dropped searches;
 * answers how many existed. Leads keep theirs.
 */
async function destroySearchKeys(d: SearchDataKeys, from: string, to: string): Promise<number> {
  let destroyed = 0;
  let after: string | null = null;
  do {
    const page = await d.sealed.searchDataKeys(from, to, after, KEY_BATCH);
    destroyed += await d.keys.destroy(page.keys);
    after = page.last;
  } while (after !== null);
  return destroyed;
}

/** The part_day range of a day partition, or of the legacy partition. */
function bounds(d: ExpiredDay): [string, string] {
  return d.day === 'legacy' ? [LEGACY_DAY, LEGACY_END] : [d.day, addDays(d.day, 1)];
}
