const DATE_ONLY_RE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * An instant given on the command line: an ISO 8601 date (midnight UTC) or a
 * date-time with a zone (`Z` or `±hh:mm`, so the moment is unambiguous).
 * Returns the instant, or why the text is not one.
 */
export function parseIsoInstant(text: string): { at: Date } | { error: string } {
  const s = text.trim();
  if (!DATE_ONLY_RE.test(s) && !DATE_TIME_RE.test(s)) {
    return { error: 'expected an ISO 8601 date or date-time with a zone, e.g. 2027-01-31 or 2027-01-31T12:00:00Z' };
  }
  const at = new Date(DATE_ONLY_RE.test(s) ? `${s}T00:00:00Z` : s);
  if (Number.isNaN(at.getTime()) || !isCalendarDay(s.slice(0, 10))) return { error: 'not a real date' };
  return { at };
}

/** 2027-02-30 is not a day (Date would silently roll it over to March). */
function isCalendarDay(day: string): boolean {
  const [y, m, d] = day.split('-').map(Number);
  const check = new Date(Date.UTC(y, m - 1, d));
  return check.getUTCFullYear() === y && check.getUTCMonth() === m - 1 && check.getUTCDate() === d;
}
