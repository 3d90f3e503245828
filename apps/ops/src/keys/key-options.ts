import { AFFILIATE_ENDPOINTS, EndpointName, RateLimit } from '@lr/contracts';
import { CliError } from '../cli-error';
import { parseIsoInstant } from '../iso-instant';

const LIMIT_RE = /^([a-z-]+)=(\d+)\/(\d+)$/;
const MAX_RATE = 1_000_000;

/**
 * `--limit search=120/20` (repeatable) → per-endpoint overrides; every bad spec
 * is reported. `endpoints`: those the key may call (an affiliate's the
 * contract's four, a school's `returns`).
 */
export function parseLimitSpecs(
  specs: readonly string[],
  endpoints: readonly EndpointName[] = AFFILIATE_ENDPOINTS,
): Partial<Record<EndpointName, RateLimit>> {
  const limits: Partial<Record<EndpointName, RateLimit>> = {};
  const problems: string[] = [];
  for (const spec of specs) {
    const m = LIMIT_RE.exec(spec.trim());
    if (!m) {
      problems.push(`--limit ${JSON.stringify(spec)}: expected <endpoint>=<per-minute>/<burst>, e.g. search=120/20`);
      continue;
    }
    const [, endpoint, perMinuteText, burstText] = m;
    if (!(endpoints as readonly string[]).includes(endpoint)) {
      problems.push(`--limit ${JSON.stringify(spec)}: unknown endpoint ${JSON.stringify(endpoint)} (endpoints: ${endpoints.join(', ')})`);
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

/**
 * `--expires-at`: an ISO 8601 date (midnight UTC) or date-time with a zone
 * (`Z` or `±hh:mm`, so the moment is unambiguous); it must be in the future.
 */
export function parseExpiresAt(text: string, now: Date = new Date()): Date {
  const parsed = parseIsoInstant(text);
  if ('error' in parsed) throw new CliError(`--expires-at ${JSON.stringify(text)}: ${parsed.error}`);
  if (parsed.at.getTime() <= now.getTime()) {
    throw new CliError(`--expires-at ${JSON.stringify(text)}: must be in the future (now is ${now.toISOString()})`);
  }
  return parsed.at;
}
