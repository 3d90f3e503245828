import type { DeliveryAnswerMatch, DeliveryAnswerMatches, DeliveryResponseRules } from '@lr/domain';
import { valueAt } from './json-path';
import type { SchoolOutcome } from './school-adapter';
import type { SchoolAnswer } from './school-http';
import { SchoolHttpError, SchoolProtocolError } from './school-errors';

/** The sandbox school protocol (docs/sandbox.md) as rules: also the json adapter's default. */
export const SANDBOX_ANSWER_RULES: DeliveryResponseRules = {
  accepted: { path: 'result', in: ['accepted'] },
  duplicate: { path: 'result', in: ['duplicate'] },
  rejected: { path: 'result', in: ['rejected'] },
  buyer_lead_id_path: 'id',
  reason_path: 'reason',
};

/** How much of the school's reason is kept (for operators), and the longest school id taken. */
export const MAX_BUYER_REASON = 500;
export const MAX_BUYER_LEAD_ID = 200;

const OUTCOMES = ['accepted', 'duplicate', 'rejected'] as const;

/**
 * Reads a school's answer with response rules: the first of accepted,
 * duplicate, rejected whose match holds decides. When none holds, a 4xx is a
 * SchoolHttpError and a body that is not JSON a SchoolProtocolError; a 2xx
 * JSON answer is `rejected`, or with `strict` (a fixed protocol such as the
 * sandbox's) a SchoolProtocolError. `strict` also refuses an id or a reason
 * of the wrong type instead of leaving it out.
 */
export function readSchoolAnswer(answer: SchoolAnswer, rules: DeliveryResponseRules, strict: boolean): SchoolOutcome {
  const kind = OUTCOMES.find((k) => matchesAny(rules[k], answer));
  if (kind === undefined) {
    if (answer.status >= 400) throw new SchoolHttpError(answer.status, answer.codes);
    if (!answer.isJson) throw new SchoolProtocolError('the answer is not JSON and no response rule reads it by its status');
    if (strict) throw new SchoolProtocolError('the answer is none of accepted, duplicate or rejected');
  }
  if (kind === 'accepted') return { kind, buyerLeadId: buyerLeadId(answer, rules.buyer_lead_id_path, strict) };
  return { kind: kind ?? 'rejected', buyerReason: buyerReason(answer, rules.reason_path, strict) };
}

function matchesAny(matches: DeliveryAnswerMatches | undefined, answer: SchoolAnswer): boolean {
  if (matches === undefined) return false;
  return (Array.isArray(matches) ? matches : [matches]).some((m) => holds(m, answer));
}

function holds(m: DeliveryAnswerMatch, answer: SchoolAnswer): boolean {
  const statusHolds = m.http_status ? m.http_status.includes(answer.status) : answer.status >= 200 && answer.status <= 299;
  if (!statusHolds) return false;
  if (m.path === undefined) return true;
  if (!answer.isJson) return false;
  const value = valueAt(answer.json, m.path);
  if (m.exists !== undefined) return (value !== undefined && value !== null) === m.exists;
  return (m.in ?? []).some((x) => x === value);
}

/** A value at `path` that is absent or null gives null; a wrong type gives null, or a protocol error when strict. */
function readOptional<T>(answer: SchoolAnswer, path: string | undefined, strict: boolean, read: (v: unknown) => T | undefined, expected: string): T | null {
  if (path === undefined || !answer.isJson) return null;
  const value = valueAt(answer.json, path);
  if (value === undefined || value === null) return null;
  const got = read(value);
  if (got !== undefined) return got;
  if (strict) throw new SchoolProtocolError(`the answer's ${path} must be ${expected}`);
  return null;
}

/**
 * NUL and unpaired surrogates parse as JSON but PostgreSQL refuses them in
 * text and jsonb, where delivery_attempts keeps what the school said.
 */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function buyerLeadId(answer: SchoolAnswer, path: string | undefined, strict: boolean): string | null {
  const expected = `a string of 1 to ${MAX_BUYER_LEAD_ID} characters`;
  return readOptional(answer, path, strict, (v) => {
    if (typeof v === 'number' && Number.isSafeInteger(v) && !strict) return String(v);
    if (typeof v !== 'string' || v.length < 1 || v.length > MAX_BUYER_LEAD_ID || v.search(UNSTORABLE) !== -1) return undefined;
    return v;
  }, expected);
}

/** The school's reason, for operators only: storable, trimmed, at most MAX_BUYER_REASON characters (null when empty). */
function buyerReason(answer: SchoolAnswer, path: string | undefined, strict: boolean): string | null {
  const text = readOptional(answer, path, strict, (v) => (typeof v === 'string' ? v : undefined), 'a string');
  return text === null ? null : capReason(text);
}

export function capReason(text: string): string | null {
  let s = text.replace(UNSTORABLE, '\ufffd').trim();
  if (s.length > MAX_BUYER_REASON) {
    s = s.slice(0, MAX_BUYER_REASON);
    if (/[\ud800-\udbff]$/.test(s)) s = s.slice(0, -1); // do not cut a surrogate pair in half
  }
  return s === '' ? null : s;
}
