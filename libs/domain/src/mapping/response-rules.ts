import { valueAt } from './json-path';
import { UnreadableAnswerError } from './mapping-errors';
import type { AnswerMatch, AnswerMatches, ResponseRules } from './mapping.types';
import { isStorable, storable } from './storable-text';

/** An answer as response rules read it: its status, and its body parsed when it is JSON. */
export interface RuleAnswer {
  status: number;
  /** The body parsed; meaningful only when isJson. */
  json: unknown;
  isJson: boolean;
}

/**
 * How a buyer (a school, or a partner taking a submit) took a lead.
 * `buyerLeadId` and `buyerReason` are its own words, for operators only.
 */
export type RuleOutcome =
  | { kind: 'accepted'; buyerLeadId: string | null }
  | { kind: 'duplicate'; buyerReason: string | null }
  | { kind: 'rejected'; buyerReason: string | null };

/** The sandbox protocol (docs/sandbox.md, school systems and partner submits) as rules: also the json adapters' default. */
export const SANDBOX_ANSWER_RULES: ResponseRules = {
  accepted: { path: 'result', in: ['accepted'] },
  duplicate: { path: 'result', in: ['duplicate'] },
  rejected: { path: 'result', in: ['rejected'] },
  buyer_lead_id_path: 'id',
  reason_path: 'reason',
};

/** How much of the buyer's reason is kept (for operators), and the longest buyer id taken. */
export const MAX_BUYER_REASON = 500;
export const MAX_BUYER_LEAD_ID = 200;

const OUTCOMES = ['accepted', 'duplicate', 'rejected'] as const;

/**
 * Reads an answer with response rules (docs/delivery-adapters.md,
 * "response_rules"): the first of accepted, duplicate, rejected whose match
 * holds decides. When none holds, a 4xx is an UnreadableAnswerError carrying
 * its status (the caller reports an HTTP failure) and a body that is not JSON
 * one without; a 2xx JSON answer is `rejected`, or with `strict` (a fixed
 * protocol such as the sandbox's) unreadable. `strict` also refuses an id or
 * a reason of the wrong type instead of leaving it out.
 */
export function readByRules(answer: RuleAnswer, rules: ResponseRules, strict: boolean): RuleOutcome {
  const kind = OUTCOMES.find((k) => matchesAny(rules[k], answer));
  if (kind === undefined) {
    if (answer.status >= 400) throw new UnreadableAnswerError(`no response rule reads an HTTP ${answer.status} answer`, answer.status);
    if (!answer.isJson) throw new UnreadableAnswerError('the answer is not JSON and no response rule reads it by its status');
    if (strict) throw new UnreadableAnswerError('the answer is none of accepted, duplicate or rejected');
  }
  if (kind === 'accepted') return { kind, buyerLeadId: buyerLeadId(answer, rules.buyer_lead_id_path, strict) };
  return { kind: kind ?? 'rejected', buyerReason: buyerReason(answer, rules.reason_path, strict) };
}

function matchesAny(matches: AnswerMatches | undefined, answer: RuleAnswer): boolean {
  if (matches === undefined) return false;
  return (Array.isArray(matches) ? matches : [matches]).some((m) => holds(m, answer));
}

function holds(m: AnswerMatch, answer: RuleAnswer): boolean {
  const statusHolds = m.http_status ? m.http_status.includes(answer.status) : answer.status >= 200 && answer.status <= 299;
  if (!statusHolds) return false;
  if (m.path === undefined) return true;
  if (!answer.isJson) return false;
  const value = valueAt(answer.json, m.path);
  if (m.exists !== undefined) return (value !== undefined && value !== null) === m.exists;
  return (m.in ?? []).some((x) => x === value);
}

/** A value at `path` that is absent or null gives null; a wrong type gives null, or an unreadable answer when strict. */
function readOptional<T>(
  answer: RuleAnswer,
  path: string | undefined,
  strict: boolean,
  read: (v: unknown) => T | undefined,
  expected: string,
): T | null {
  if (path === undefined || !answer.isJson) return null;
  const value = valueAt(answer.json, path);
  if (value === undefined || value === null) return null;
  const got = read(value);
  if (got !== undefined) return got;
  if (strict) throw new UnreadableAnswerError(`the answer's ${path} must be ${expected}`);
  return null;
}

function buyerLeadId(answer: RuleAnswer, path: string | undefined, strict: boolean): string | null {
  const expected = `a string of 1 to ${MAX_BUYER_LEAD_ID} characters`;
  return readOptional(
    answer,
    path,
    strict,
    (v) => {
      if (typeof v === 'number' && Number.isSafeInteger(v) && !strict) return String(v);
      if (typeof v !== 'string' || v.length < 1 || v.length > MAX_BUYER_LEAD_ID || !isStorable(v)) return undefined;
      return v;
    },
    expected,
  );
}

/** The buyer's reason, for operators only: storable, trimmed, at most MAX_BUYER_REASON characters (null when empty). */
function buyerReason(answer: RuleAnswer, path: string | undefined, strict: boolean): string | null {
  const text = readOptional(answer, path, strict, (v) => (typeof v === 'string' ? v : undefined), 'a string');
  return text === null ? null : capReason(text);
}

export function capReason(text: string): string | null {
  let s = storable(text).trim();
  if (s.length > MAX_BUYER_REASON) {
    s = s.slice(0, MAX_BUYER_REASON);
    if (/[\ud800-\udbff]$/.test(s)) s = s.slice(0, -1); // do not cut a surrogate pair in half
  }
  return s === '' ? null : s;
}
