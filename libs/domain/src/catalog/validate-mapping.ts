import type { AnswerMatch, DocumentShape, JsonScalar, ResponseRules } from '../mapping/mapping.types';
import { literalSecretProblem } from '../mapping/header-templates';
import { UNSAFE_KEYS } from '../mapping/json-path';
import { childPath, isPlainObject, JsonReader, tracker } from './json-reader';

/**
 * Checks of the configurable JSON mapping shared by a school's json delivery
 * and a json partner (docs/delivery-adapters.md, docs/partner-adapter.md):
 * headers with `${env:NAME}`, dotted paths, field maps over a document,
 * response rules. Every issue names its JSON path.
 */

const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** Headers the adapters set themselves: the body is JSON, and Idempotency-Key is always our lead id. */
const ADAPTER_HEADERS = ['content-type', 'content-length', 'host', 'connection', 'transfer-encoding', 'idempotency-key'];
const ENV_REF_RE = /\$\{env:[A-Za-z_][A-Za-z0-9_]{0,99}\}/g;

export function readHeaders(r: JsonReader, v: unknown, path: string): Record<string, string> | undefined {
  const ok = tracker(r);
  const headers = r.stringMap(v, path);
  if (!headers) return undefined;
  const seen = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    const at = childPath(path, name);
    const lower = name.toLowerCase();
    const reserved = ADAPTER_HEADERS.includes(lower);
    if (!HEADER_NAME_RE.test(name)) r.fail(at, "must be an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)");
    else if (reserved) r.fail(at, 'is set by the adapter and cannot be configured');
    else if (seen.has(lower)) r.fail(at, `repeats header ${seen.get(lower)} (header names are case-insensitive)`);
    seen.set(lower, name);
    if (!/^[\t\x20-\x7e]*$/.test(value)) r.fail(at, 'must be printable ASCII (no line breaks or control characters)');
    else if (value.replace(ENV_REF_RE, '').includes('${')) {
      r.fail(at, 'has a "${" that is not an environment reference ${env:NAME} (NAME: letters, digits and _)');
    } else if (!reserved) {
      const secret = literalSecretProblem(name, value);
      if (secret) r.fail(at, secret);
    }
  }
  return ok() ? headers : undefined;
}

const MAX_FIELD_MAP_ENTRIES = 200;
export const MAX_PATH_DEPTH = 10;

/** A dotted path (`contact.email`, `errors.0.message`): 1 to 10 non-empty segments of at most 100 characters. */
export function readDottedPath(r: JsonReader, v: unknown, path: string): string | undefined {
  const s = r.string(v, path, { maxLength: 1000 });
  if (s === undefined) return undefined;
  const segments = s.split('.');
  if (segments.length > MAX_PATH_DEPTH) return r.fail(path, `must be a dotted path of at most ${MAX_PATH_DEPTH} parts`);
  if (segments.some((x) => x === '' || x.length > 100))
    return r.fail(path, `must be a dotted path of non-empty parts of at most 100 characters, got ${JSON.stringify(s)}`);
  const unsafe = segments.find((x) => UNSAFE_KEYS.has(x));
  if (unsafe) return r.fail(path, `must not use ${unsafe} as a key`);
  return s;
}

/** What a field_map builds and from which document. */
export interface FieldMapContext {
  /** Whose body the targets build, e.g. `the school's body`. */
  body: string;
  /** The document the sources name, e.g. `the lead document`, and its fields. */
  document: string;
  shape: { readonly [field: string]: DocumentShape };
  /** The questions an `answers.<name>` source may name; undefined: any name. */
  questions?: string[];
}

export function readFieldMap(r: JsonReader, v: unknown, path: string, ctx: FieldMapContext): Record<string, string> | undefined {
  if (!isPlainObject(v)) return r.fail(path, `must be an object of target path (in ${ctx.body}) to source`);
  const entries = Object.entries(v);
  if (entries.length === 0)
    return r.fail(path, `must not be empty (leave field_map out to send the default ${ctx.document.replace(/^the /, '')})`);
  if (entries.length > MAX_FIELD_MAP_ENTRIES) return r.fail(path, `must have at most ${MAX_FIELD_MAP_ENTRIES} entries`);
  const ok = tracker(r);
  const out: Record<string, string> = {};
  const targets: string[] = [];
  for (const [target, rawSource] of entries) {
    const at = childPath(path, target);
    if (readDottedPath(r, target, at) !== undefined) {
      const clash = targets.find((t) => t.startsWith(`${target}.`) || target.startsWith(`${t}.`));
      if (clash) r.fail(at, `conflicts with target ${JSON.stringify(clash)}: one value cannot also hold fields`);
      targets.push(target);
    }
    const source = r.string(rawSource, at, { maxLength: 2000 });
    if (source !== undefined && checkFieldSource(r, source, at, ctx)) out[target] = source;
  }
  return ok() ? out : undefined;
}

const DOCUMENT_KEY_RE = /^[A-Za-z0-9_-]{1,100}$/;

/** A literal `=text`, or a path in the context's document. */
function checkFieldSource(r: JsonReader, source: string, at: string, ctx: FieldMapContext): boolean {
  if (source.startsWith('=')) return true;
  const invalid = (why: string) => r.fail(at, `invalid source ${JSON.stringify(source)}: ${why} (a literal is written =text)`) ?? false;
  const segments = source.split('.');
  let shape: DocumentShape = ctx.shape;
  for (const [i, segment] of segments.entries()) {
    const parent = segments.slice(0, i).join('.') || ctx.document;
    if (shape === true) return invalid(`${parent} is a value and has no fields`);
    if (shape === 'any-key') {
      if (i < segments.length - 1) return invalid(`${parent}.${segment} is a value and has no fields`);
      if (!DOCUMENT_KEY_RE.test(segment)) return invalid(`${JSON.stringify(segment)} is not a key of ${parent}`);
      if (parent === 'answers' && ctx.questions && !ctx.questions.includes(segment)) {
        return invalid(`${JSON.stringify(segment)} is not among this offer's form_fields (${ctx.questions.join(', ') || 'none'})`);
      }
      return true;
    }
    if (!Object.hasOwn(shape, segment))
      return invalid(`${parent} has no field ${JSON.stringify(segment)} (fields: ${Object.keys(shape).join(', ')})`);
    shape = shape[segment];
  }
  return true;
}

const OUTCOME_RULES = ['accepted', 'duplicate', 'rejected'] as const;
const RULE_PATHS = ['buyer_lead_id_path', 'reason_path'] as const;

export function readResponseRules(r: JsonReader, v: unknown, path: string): ResponseRules | undefined {
  const o = r.object(v, path, [...OUTCOME_RULES, ...RULE_PATHS], ['accepted']);
  if (!o) return undefined;
  const ok = tracker(r);
  const out: Record<string, unknown> = {};
  for (const key of OUTCOME_RULES) {
    if (o[key] === undefined) continue;
    const at = childPath(path, key);
    if (!Array.isArray(o[key])) out[key] = readAnswerMatch(r, o[key], at);
    else if (o[key].length === 0) r.fail(at, 'must not be empty');
    else out[key] = o[key].map((m: unknown, i: number) => readAnswerMatch(r, m, childPath(at, i)));
  }
  for (const key of RULE_PATHS) {
    if (o[key] !== undefined) out[key] = readDottedPath(r, o[key], childPath(path, key));
  }
  return ok() ? (out as unknown as ResponseRules) : undefined;
}

function readAnswerMatch(r: JsonReader, v: unknown, path: string): AnswerMatch | undefined {
  const o = r.object(v, path, ['http_status', 'path', 'in', 'exists'], []);
  if (!o) return undefined;
  const p = (k: string) => childPath(path, k);
  const ok = tracker(r);
  if (o.http_status === undefined && o.path === undefined) r.fail(path, 'must name http_status, path or both');
  if (o.path !== undefined && (o.in === undefined) === (o.exists === undefined)) r.fail(path, 'a path needs exactly one of in or exists');
  if (o.path === undefined && (o.in !== undefined || o.exists !== undefined)) r.fail(path, 'in and exists need a path');
  const out: AnswerMatch = {};
  if (o.http_status !== undefined) {
    const statuses = r.array(o.http_status, p('http_status'), { nonEmpty: true });
    // A 5xx is always a failure of the other system, and a 3xx is refused: only 2xx and 4xx answers are read.
    if (statuses) out.http_status = statuses.map((x, i) => r.integer(x, childPath(p('http_status'), i), 200, 499) as number);
  }
  if (o.path !== undefined) out.path = readDottedPath(r, o.path, p('path'));
  if (o.in !== undefined) {
    const values = r.array(o.in, p('in'), { nonEmpty: true });
    if (values && values.length > 50) r.fail(p('in'), 'must have at most 50 values');
    else if (values) out.in = values.map((x, i) => readJsonScalar(r, x, childPath(p('in'), i)) as JsonScalar);
  }
  if (o.exists !== undefined) out.exists = r.boolean(o.exists, p('exists'));
  return ok() ? out : undefined;
}

function readJsonScalar(r: JsonReader, v: unknown, path: string): JsonScalar | undefined {
  if (v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return v;
  if (typeof v === 'string' && v.length <= 200) return v;
  return r.fail(path, 'must be a string (at most 200 characters), a number, a boolean or null');
}
