import { InvalidParam } from './invalid-param';

export const OUTCOMES = ['accept', 'reject', 'duplicate', 'error', 'timeout'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const MATCHES = ['all', 'none', 'some'] as const;
export type Match = (typeof MATCHES)[number];

/** How the system answers a revocation notice (docs/sandbox.md): acknowledge it (200), or never (503, recorded all the same). */
export const REVOCATION_ANSWERS = ['acknowledge', 'ignore'] as const;
export type RevocationAnswer = (typeof REVOCATION_ANSWERS)[number];

/**
 * Which display string of every search result carries hostile markup
 * (docs/sandbox.md, `markup`): for trying how the service treats a partner
 * that sends HTML or script in what affiliates show consumers.
 */
export const MARKUPS = ['none', 'tcpa_text', 'school_name', 'program_label', 'question_label'] as const;
export type Markup = (typeof MARKUPS)[number];

export const MAX_DELAY_MS = 300_000;
export const MAX_REASON_LENGTH = 500;

/** What the query string of a sandbox URL controls. */
export interface SandboxParams {
  outcome: Outcome;
  delayMs: number;
  /** The school's own rejection text (outcome=reject); absent: a default text. */
  reason?: string;
  match: Match;
  revocation: RevocationAnswer;
  markup: Markup;
}

export type ParamName = 'outcome' | 'delay_ms' | 'reason' | 'match' | 'revocation' | 'markup';

export const SCHOOL_PARAMS: readonly ParamName[] = ['outcome', 'delay_ms', 'reason', 'revocation'];
/** A partner's base_url query is appended to both /search and /submit, so both take the same set. */
export const PARTNER_PARAMS: readonly ParamName[] = ['outcome', 'delay_ms', 'reason', 'match', 'revocation', 'markup'];

const DEFAULTS: SandboxParams = { outcome: 'accept', delayMs: 0, match: 'all', revocation: 'acknowledge', markup: 'none' };

/**
 * Reads a raw query string strictly: unknown, repeated or malformed parameters
 * are refused (a typo in a catalog URL should fail loudly, not silently accept).
 */
export function parseSandboxParams(rawQuery: string, allowed: readonly ParamName[]): SandboxParams {
  const params: SandboxParams = { ...DEFAULTS };
  for (const [name, value] of singleValues(rawQuery)) {
    if (!(allowed as readonly string[]).includes(name)) {
      throw new InvalidParam(name, 'query', `Unknown query parameter ${name}; allowed: ${allowed.join(', ')}`);
    }
    switch (name as ParamName) {
      case 'outcome':
        params.outcome = oneOf(value, OUTCOMES, 'outcome', 'query');
        break;
      case 'delay_ms':
        params.delayMs = delayMs(value);
        break;
      case 'reason':
        params.reason = reason(value);
        break;
      case 'match':
        params.match = oneOf(value, MATCHES, 'match', 'query');
        break;
      case 'revocation':
        params.revocation = oneOf(value, REVOCATION_ANSWERS, 'revocation', 'query');
        break;
      case 'markup':
        params.markup = oneOf(value, MARKUPS, 'markup', 'query');
        break;
    }
  }
  return params;
}

/** `X-Sandbox-Outcome`: overrides the URL's outcome for one request. */
export function outcomeOverride(header: string | string[] | undefined): Outcome | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header)) throw new InvalidParam('X-Sandbox-Outcome', 'header', 'X-Sandbox-Outcome must be sent once');
  return oneOf(header.trim(), OUTCOMES, 'X-Sandbox-Outcome', 'header');
}

/** `limit` on the received lists: the newest n records. */
export function parseListLimit(rawQuery: string, max: number): number {
  let limit = max;
  for (const [name, value] of singleValues(rawQuery)) {
    if (name !== 'limit') throw new InvalidParam(name, 'query', `Unknown query parameter ${name}; allowed: limit`);
    if (!/^\d{1,9}$/.test(value) || Number(value) < 1 || Number(value) > max) {
      throw new InvalidParam('limit', 'query', `limit must be an integer from 1 to ${max}`);
    }
    limit = Number(value);
  }
  return limit;
}

/** The query string of a request URL, without the `?`. */
export function rawQueryOf(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at + 1);
}

function singleValues(rawQuery: string): Array<[string, string]> {
  const seen = new Set<string>();
  const out: Array<[string, string]> = [];
  for (const [name, value] of new URLSearchParams(rawQuery)) {
    if (seen.has(name)) throw new InvalidParam(name, 'query', `Query parameter ${name} is given more than once`);
    seen.add(name);
    out.push([name, value]);
  }
  return out;
}

function oneOf<T extends string>(value: string, allowed: readonly T[], param: string, location: 'query' | 'header'): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new InvalidParam(param, location, `${param} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value.slice(0, 50))}`);
}

function delayMs(value: string): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) > MAX_DELAY_MS) {
    throw new InvalidParam('delay_ms', 'query', `delay_ms must be an integer from 0 to ${MAX_DELAY_MS}`);
  }
  return Number(value);
}

function reason(value: string): string {
  if (value.trim().length === 0 || value.length > MAX_REASON_LENGTH) {
    throw new InvalidParam('reason', 'query', `reason must be 1 to ${MAX_REASON_LENGTH} characters`);
  }
  return value;
}
