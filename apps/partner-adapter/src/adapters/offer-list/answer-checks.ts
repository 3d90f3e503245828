import { isStorable, markupIn, type MarkupKind } from '@lr/domain';

/**
 * Small checks for reading an untrusted partner body. Each throws
 * InvalidPartnerValue naming the JSON path, so one bad result entry can be
 * dropped with a reason while the rest of the answer is kept.
 */
export class InvalidPartnerValue extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`${path} ${problem}`);
    this.name = 'InvalidPartnerValue';
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function object(v: unknown, path: string): Record<string, unknown> {
  if (!isObject(v)) throw new InvalidPartnerValue(path, 'must be an object');
  return v;
}

export function text(v: unknown, path: string, max: number, min = 1): string {
  if (typeof v !== 'string' || v.length < min || v.length > max) {
    throw new InvalidPartnerValue(path, `must be a string of ${min} to ${max} characters`);
  }
  // The orchestrator stores results in jsonb, which refuses these: such a value would fail the whole answer there, on every retry.
  if (!isStorable(v)) throw new InvalidPartnerValue(path, 'holds a NUL character or broken Unicode');
  return v;
}

/** A string, or null when the key is null or absent. */
export function nullableText(v: unknown, path: string, max: number): string | null {
  return v === null || v === undefined ? null : text(v, path, max);
}

export function list(v: unknown, path: string, min: number, max: number): unknown[] {
  if (!Array.isArray(v) || v.length < min || v.length > max) {
    throw new InvalidPartnerValue(path, `must be an array of ${min} to ${max} items`);
  }
  return v;
}

/** A positive integer, or null when the key is null or absent. */
export function positiveIntegerOrNull(v: unknown, path: string): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0)
    throw new InvalidPartnerValue(path, 'must be a positive integer or null');
  return v;
}

/** An absolute http(s) URL (shown to affiliates, so no `javascript:` or `data:`), or null. */
export function httpUrlOrNull(v: unknown, path: string): string | null {
  const s = nullableText(v, path, 2000);
  if (s === null) return null;
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw new InvalidPartnerValue(path, 'must be an http(s) URL or null');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidPartnerValue(path, 'must be an http(s) URL or null');
  return s;
}

/** The strings of a result an affiliate shows consumers: each is checked for markup, and counted by this name when refused. */
export const DISPLAY_FIELDS = [
  'tcpa_text',
  'school_name',
  'program_value',
  'program_label',
  'question_name',
  'question_label',
  'option_value',
  'option_label',
] as const;
export type DisplayField = (typeof DISPLAY_FIELDS)[number];

/** A display string that holds markup (libs/domain markupIn): the entry is refused, never repaired. */
export class MarkupInPartnerText extends InvalidPartnerValue {
  constructor(
    path: string,
    readonly field: DisplayField,
    readonly markup: MarkupKind,
  ) {
    super(path, `holds markup (${markup}): display text must be plain text`);
    this.name = 'MarkupInPartnerText';
  }
}

/** A string shown to consumers: bounded and storable as `text`, and plain text. */
export function displayText(v: unknown, path: string, max: number, field: DisplayField): string {
  const s = text(v, path, max);
  const markup = markupIn(s);
  if (markup) throw new MarkupInPartnerText(path, field, markup);
  return s;
}

/** A display string, or null when the key is null or absent. */
export function nullableDisplayText(v: unknown, path: string, max: number, field: DisplayField): string | null {
  return v === null || v === undefined ? null : displayText(v, path, max, field);
}
