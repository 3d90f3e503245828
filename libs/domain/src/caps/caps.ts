import { DateTime } from 'luxon';
import type { CapPeriod } from '../catalog/catalog-vocabulary';

/**
 * A cap as the catalog sets it (CATALOG.md, `caps`): on the offer across every
 * campaign (`campaignId` null), or on one campaign's offer; a period in the
 * cap's IANA timezone; a limit of sales.
 */
export interface CapRule {
  offerId: string;
  campaignId: string | null;
  period: CapPeriod;
  limit: number;
  timezone: string;
}

/**
 * The counter a cap counts in now: its scope (`offer:<offer>` or
 * `campaign:<campaign>:offer:<offer>`), its period and the start of the
 * current period in the cap's timezone. PostgreSQL stores one `cap_usage` row
 * per slot; this is the one definition of which.
 */
export interface CapSlot {
  scope: string;
  period: CapPeriod;
  periodStart: Date;
}

/** A cap with its slot now. */
export interface CapAt extends CapRule {
  slot: CapSlot;
}

/** The scope a cap counts in. */
export function capScope(offerId: string, campaignId: string | null): string {
  return campaignId === null ? `offer:${offerId}` : `campaign:${campaignId}:offer:${offerId}`;
}

/**
 * The start of the period that holds `at`, in the cap's timezone: the hour,
 * the day, the ISO week (Monday) or the month; `total` never restarts (the
 * epoch). In a zone with a half-hour offset an hour starts at :30 UTC.
 */
export function capPeriodStart(period: CapPeriod, timezone: string, at: Date): Date {
  if (period === 'total') return new Date(0);
  // Time zone arithmetic is the costly part (a search judges every offer's caps): the period that holds
  // `at` is kept per zone and period until `at` leaves it. A period's bounds never change, so this is exact.
  const key = `${period}|${timezone}`;
  const t = at.getTime();
  const known = periods.get(key);
  if (known && t >= known.start && t < known.end) return new Date(known.start);
  const local = DateTime.fromJSDate(at, { zone: timezone });
  if (!local.isValid) throw new RangeError(`unknown cap timezone ${JSON.stringify(timezone)}`);
  const start = local.startOf(period);
  const bounds = {
    start: start.toMillis(),
    end: start
      .plus({ [period]: 1 })
      .startOf(period)
      .toMillis(),
  };
  if (periods.size >= MAX_KNOWN_PERIODS) periods.clear();
  periods.set(key, bounds);
  return new Date(bounds.start);
}

/** The current period of each (period, zone) seen: [start, end) in epoch ms. */
const periods = new Map<string, { start: number; end: number }>();
const MAX_KNOWN_PERIODS = 1000;

/** The caps that bound a sale of an offer under a campaign: the offer's own first, then the campaign's; each with its slot at `at`. */
export function capsAt(caps: readonly CapRule[], at: Date): CapAt[] {
  return [...caps]
    .sort((a, b) => (a.campaignId === null ? 0 : 1) - (b.campaignId === null ? 0 : 1) || a.period.localeCompare(b.period))
    .map((cap) => ({
      ...cap,
      slot: { scope: capScope(cap.offerId, cap.campaignId), period: cap.period, periodStart: capPeriodStart(cap.period, cap.timezone, at) },
    }));
}

/** A stable key of a slot, for maps of usage. */
export const slotKey = (s: CapSlot): string => `${s.scope}|${s.period}|${s.periodStart.toISOString()}`;

/** Sales counted in each slot now (what `cap_usage` says); a slot with no row has none. */
export type CapUsage = ReadonlyMap<string, number>;

/** Sales its slot counts now (none without a row). */
export function capUsed(cap: CapAt, usage: CapUsage): number {
  return usage.get(slotKey(cap.slot)) ?? 0;
}

/** The cap is full when its slot already counts `limit` sales (a limit of 0 takes none). */
export function capIsFull(cap: CapAt, usage: CapUsage): boolean {
  return capUsed(cap, usage) >= cap.limit;
}

/** The first full cap of a sale, or undefined when every cap has room (CAP_REACHED names no level: the cap is for operators). */
export function fullCap(caps: readonly CapAt[], usage: CapUsage): CapAt | undefined {
  return caps.find((cap) => capIsFull(cap, usage));
}
