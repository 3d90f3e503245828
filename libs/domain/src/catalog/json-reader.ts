import { markupIn, type MarkupKind } from '../partners/untrusted-text';
import type { CatalogIssue } from './catalog.types';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PLAIN_KEY_RE = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `offers[0]` + `programs` → `offers[0].programs`; odd keys are quoted: `x["a b"]`. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  const part = PLAIN_KEY_RE.test(key) ? key : `[${JSON.stringify(key)}]`;
  if (path === '') return part.startsWith('[') ? `$${part}` : part;
  return part.startsWith('[') ? `${path}${part}` : `${path}.${part}`;
}

export function displayPath(path: string): string {
  return path === '' ? '$' : path;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  return `${typeof v} ${String(v)}`;
}

/** Reports whether every read since the call succeeded (no issue was added to `r`). */
export function tracker(r: JsonReader): () => boolean {
  const before = r.issues.length;
  return () => r.issues.length === before;
}

/**
 * Reads untrusted JSON while collecting every problem with its JSON path, so a
 * whole file is checked in one pass and each error says where it is. A value
 * readers get as `undefined` is a missing key: `object()` reports it once when
 * it is required, so the value readers stay silent about it.
 */
interface StringOptions {
  maxLength?: number;
  pattern?: RegExp;
  patternHint?: string;
  plainText?: boolean;
}

const MARKUP_WORDS: Record<MarkupKind, string> = {
  tag: 'an HTML tag',
  script_url: 'a javascript:, vbscript: or data: URL',
  event_handler: 'an on…= event handler',
};

export class JsonReader {
  readonly issues: CatalogIssue[] = [];

  fail(path: string, message: string): undefined {
    this.issues.push({ path: displayPath(path), message });
    return undefined;
  }

  /** An object with only the allowed keys and every required key. Returns undefined when not an object. */
  object(v: unknown, path: string, allowed: readonly string[], required: readonly string[]): Record<string, unknown> | undefined {
    if (!isPlainObject(v)) return this.fail(path, `must be an object, got ${describe(v)}`);
    for (const key of Object.keys(v)) {
      if (!allowed.includes(key)) this.fail(childPath(path, key), `unknown key (allowed: ${allowed.join(', ')})`);
    }
    for (const key of required) {
      if (v[key] === undefined) this.fail(childPath(path, key), 'is required');
    }
    return v;
  }

  /** An array (optionally non-empty). */
  array(v: unknown, path: string, opts: { nonEmpty?: boolean } = {}): unknown[] | undefined {
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) return this.fail(path, `must be an array, got ${describe(v)}`);
    if (opts.nonEmpty && v.length === 0) return this.fail(path, 'must not be empty');
    return v;
  }

  /** `plainText`: shown to consumers (a name, a label, a consent statement), so no markup (partners/untrusted-text.ts). */
  string(v: unknown, path: string, opts: StringOptions = {}): string | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== 'string') return this.fail(path, `must be a string, got ${describe(v)}`);
    if (v.trim() === '') return this.fail(path, 'must not be empty');
    const max = opts.maxLength ?? 2000;
    if (v.length > max) return this.fail(path, `must be at most ${max} characters`);
    if (opts.pattern && !opts.pattern.test(v)) return this.fail(path, opts.patternHint ?? `must match ${opts.pattern}`);
    const markup = opts.plainText ? markupIn(v) : null;
    if (markup) return this.fail(path, `must be plain text: it is shown to consumers and holds markup (${MARKUP_WORDS[markup]})`);
    return v;
  }

  /** A string or null (null and absent both give null). */
  optionalString(v: unknown, path: string, opts: StringOptions = {}): string | null | undefined {
    if (v === undefined || v === null) return null;
    return this.string(v, path, opts);
  }

  uuid(v: unknown, path: string): string | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== 'string') return this.fail(path, `must be a UUID string, got ${describe(v)}`);
    if (!UUID_RE.test(v)) return this.fail(path, `must be a UUID, got ${describe(v)}`);
    return v.toLowerCase();
  }

  boolean(v: unknown, path: string): boolean | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') return this.fail(path, `must be a boolean, got ${describe(v)}`);
    return v;
  }

  integer(v: unknown, path: string, min: number, max: number): number | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v)) return this.fail(path, `must be an integer, got ${describe(v)}`);
    if (v < min || v > max) return this.fail(path, `must be between ${min} and ${max}, got ${v}`);
    return v;
  }

  /** A money amount: a non-negative number with at most 2 decimals (stored as numeric(12,2)). */
  money(v: unknown, path: string): number | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) return this.fail(path, `must be a number, got ${describe(v)}`);
    if (v < 0) return this.fail(path, `must not be negative, got ${v}`);
    if (v >= 1e10) return this.fail(path, `must be less than 10000000000, got ${v}`);
    if (Math.abs(Math.round(v * 100) - v * 100) > 1e-6) return this.fail(path, `must have at most 2 decimals, got ${v}`);
    return v;
  }

  oneOf<T extends string>(v: unknown, path: string, values: readonly T[]): T | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== 'string') return this.fail(path, `must be a string, one of ${values.join(', ')}; got ${describe(v)}`);
    if (!values.includes(v as T)) return this.fail(path, `must be one of ${values.join(', ')}; got ${JSON.stringify(v)}`);
    return v as T;
  }

  httpUrl(v: unknown, path: string): string | undefined {
    if (v === undefined) return undefined;
    const s = this.string(v, path);
    if (s === undefined) return undefined;
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      return this.fail(path, `must be an http(s) URL, got ${describe(s)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return this.fail(path, `must be an http(s) URL, got ${describe(s)}`);
    return s;
  }

  /** An IANA time zone name the runtime knows (checked with Intl.DateTimeFormat). */
  timezone(v: unknown, path: string): string | undefined {
    const s = this.string(v, path, { maxLength: 64 });
    if (s === undefined) return undefined;
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: s });
    } catch {
      return this.fail(path, `must be an IANA time zone such as America/New_York, got ${describe(s)}`);
    }
    return s;
  }

  /** An object whose values are all strings. */
  stringMap(v: unknown, path: string): Record<string, string> | undefined {
    if (v === undefined) return undefined;
    if (!isPlainObject(v)) return this.fail(path, `must be an object, got ${describe(v)}`);
    const out: Record<string, string> = {};
    let ok = true;
    for (const [key, value] of Object.entries(v)) {
      const s = this.string(value, childPath(path, key));
      if (s === undefined) ok = false;
      else out[key] = s;
    }
    return ok ? out : undefined;
  }
}
