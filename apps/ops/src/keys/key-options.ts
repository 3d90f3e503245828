import { ENDPOINTS, EndpointName, RateLimit } from '@lr/contracts';
import { CliError } from '../cli-error';

const LIMIT_RE = /^([a-z-]+)=(\d+)\/(\d+)$/;
const MAX_RATE = 1_000_000;

/** `--limit search=120/20` (repeatable) → per-endpoint overrides; every bad spec is reported. */
export function parseLimitSpecs(specs: readonly string[]): Partial<Record<EndpointName, RateLimit>> {
  const limits: Partial<Record<EndpointName, RateLimit>> = {};
  const problems: string[] = [];
  for (const spec of specs) {
    const m = LIMIT_RE.exec(spec.trim());
    if (!m) {
      problems.push(`--limit ${JSON.stringify(spec)}: expected <endpoint>=<per-minute>/<burst>, e.g. search=120/20`);
      continue;
    }
    const [, endpoint, perMinuteText, burstText] = m;
    if (!(ENDPOINTS as readonly string[]).includes(endpoint)) {
      problems.push(`--limit ${JSON.stringify(spec)}: unknown endpoint ${JSON.stringify(endpoint)} (endpoints: ${ENDPOINTS.join(', ')})`);
      continue;
    }
    const perMinute = Number(perMinuteText);
    const burst = Number(burstText);
    if (perMinute < 1 || perMinute > MAX_RATE || burst < 1 || burst > MAX_RATE) {
      problems.push(`--limit ${JSON.stringify(spec)}: per-minute and burst must be between 1 and ${MAX_RATE}`);
      continue;
    }
    if (limits[endpoint as EndpointName]) {
      problems.push(`--limit ${JSON.stringify(spec)}: endpoint ${endpoint} is limited twice`);
      continue;
    }
    limits[endpoint as EndpointName] = { perMinute, burst };
  }
  if (problems.length > 0) throw new CliError(problems.join('\n'));
  return limits;
}

const DATE_ONLY_RE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * `--expires-at`: an ISO 8601 date (midnight UTC) or date-time with a zone
 * (`Z` or `±hh:mm`, so the moment is unambiguous); it must be in the future.
 */
export function parseExpiresAt(text: string, now: Date = new Date()): Date {
  const s = text.trim();
  if (!DATE_ONLY_RE.test(s) && !DATE_TIME_RE.test(s)) {
    throw new CliError(`--expires-at ${JSON.stringify(text)}: expected an ISO 8601 date or date-time with a zone, e.g. 2027-01-31 or 2027-01-31T12:00:00Z`);
  }
  const at = new Date(DATE_ONLY_RE.test(s) ? `${s}T00:00:00Z` : s);
  if (Number.isNaN(at.getTime()) || !isCalendarDay(s.slice(0, 10))) {
    throw new CliError(`--expires-at ${JSON.stringify(text)}: not a real date`);
  }
  if (at.getTime() <= now.getTime()) {
    throw new CliError(`--expires-at ${JSON.stringify(text)}: must be in the future (now is ${now.toISOString()})`);
  }
  return at;
}

/** 2027-02-30 is not a day (Date would silently roll it over to March). */
function isCalendarDay(day: string): boolean {
  const [y, m, d] = day.split('-').map(Number);
  const check = new Date(Date.UTC(y, m - 1, d));
  return check.getUTCFullYear() === y && check.getUTCMonth() === m - 1 && check.getUTCDate() === d;
}
