import isEmail from 'validator/lib/isEmail';
import { canonicalVocabularyValue, LEAD_VOCABULARIES } from './lead-vocabulary';

/**
 * The lead as the contract describes it (groups personal, address, education,
 * background; every value a string), checked against LEAD-FIELDS.md and brought
 * to one shape. Pure: no framework, no I/O.
 */
export const LEAD_GROUPS = {
  personal: ['first_name', 'last_name', 'email', 'phone', 'date_of_birth'],
  address: ['address_line_1', 'city', 'state', 'zip_code'],
  education: ['education_level', 'high_school_graduation_year', 'start_timeline', 'learning_preference'],
  background: ['military_affiliation', 'us_citizen'],
} as const;
export type LeadGroup = keyof typeof LEAD_GROUPS;
export type Lead = { [G in LeadGroup]?: Partial<Record<(typeof LEAD_GROUPS)[G][number], string>> } & {
  /**
   * A stored lead's readable age (whole years, on the day it was stored):
   * its date of birth is sealed with the rest of its contact data
   * (contact/lead-contact.ts), and the age rules read this instead. Never
   * sent by a caller, never sent to a buyer.
   */
  age?: string;
};

/** Flat keys accepted in place of the nested form: each field's own name plus common aliases. */
export const FLAT_LEAD_KEYS: Record<string, string> = Object.fromEntries([
  ...Object.entries(LEAD_GROUPS).flatMap(([g, fields]) => fields.map((f) => [f, `${g}.${f}`])),
  ['zip', 'address.zip_code'],
  ['dob', 'personal.date_of_birth'],
  ['address', 'address.address_line_1'],
  ['address1', 'address.address_line_1'],
  ['hs_grad_year', 'education.high_school_graduation_year'],
  ['grad_year', 'education.high_school_graduation_year'],
]);

export interface LeadFieldError {
  /** The field as the caller named it, e.g. `lead.personal.email` or `lead.email`. */
  field: string;
  code: 'REQUIRED_FIELD_MISSING' | 'INVALID_FIELD';
  message: string;
}

const MAX_TEXT = 200;

/** Checks one field's value; returns its stored form or an error message. `today` makes age checks testable. */
export function checkLeadField(path: string, value: unknown, today: Date = new Date()): { value: string } | { error: string } {
  if (path === 'education.high_school_graduation_year' && typeof value === 'number' && Number.isInteger(value)) {
    value = String(value);
  }
  if (typeof value !== 'string') return { error: 'must be a string' };
  const v = value.trim();
  if (v === '') return { error: 'must not be empty' };
  if (v.length > MAX_TEXT) return { error: `must be at most ${MAX_TEXT} characters` };
  if (LEAD_VOCABULARIES[path]) {
    const canonical = canonicalVocabularyValue(path, v);
    return canonical ? { value: canonical } : { error: `must be one of: ${LEAD_VOCABULARIES[path].join(', ')}` };
  }
  switch (path) {
    case 'personal.email':
      return isEmail(v, { allow_utf8_local_part: true, require_tld: true }) ? { value: v } : { error: 'must be an email address' };
    case 'personal.phone': {
      const digits = usPhoneDigits(v);
      return digits ? { value: digits } : { error: 'must be a US phone number (10 digits, optional +1)' };
    }
    case 'personal.date_of_birth':
      return checkDateOfBirth(v, today);
    case 'address.zip_code':
      return /^\d{5}(-?\d{4})?$/.test(v) ? { value: v } : { error: 'must be 5 digits or ZIP+4' };
    case 'education.high_school_graduation_year':
      return /^\d{4}$/.test(v) ? { value: v } : { error: 'must be a four-digit year' };
    default:
      return { value: v };
  }
}

/** 10 US digits after dropping punctuation and a leading +1/1; undefined otherwise. */
export function usPhoneDigits(raw: string): string | undefined {
  if (!/^[\d\s().+-]+$/.test(raw)) return undefined;
  let digits = raw.replace(/\D/g, '');
  if (digits.length === 11 && digits.startsWith('1')) digits = digits.slice(1);
  return digits.length === 10 ? digits : undefined;
}

function checkDateOfBirth(v: string, today: Date): { value: string } | { error: string } {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return { error: 'must be a date as YYYY-MM-DD' };
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return { error: 'must be a real date' };
  const age = ageOn(date, today);
  if (age < 13 || age > 100) return { error: 'must give an age from 13 to 100' };
  return { value: v };
}

export function ageOn(birth: Date, today: Date): number {
  let age = today.getUTCFullYear() - birth.getUTCFullYear();
  const beforeBirthday =
    today.getUTCMonth() < birth.getUTCMonth() || (today.getUTCMonth() === birth.getUTCMonth() && today.getUTCDate() < birth.getUTCDate());
  if (beforeBirthday) age -= 1;
  return age;
}

/**
 * Reads a request's `lead` (nested groups, flat keys, or both) into the nested
 * form, checking every known field. Unknown keys are ignored (the contract allows
 * extra properties); a flat key that contradicts its nested twin is an error.
 */
export function parseLead(input: unknown, prefix = 'lead', today: Date = new Date()): { lead: Lead; errors: LeadFieldError[] } {
  const errors: LeadFieldError[] = [];
  const lead: Record<string, Record<string, string>> = {};
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { lead: {}, errors: [{ field: prefix, code: 'INVALID_FIELD', message: 'must be an object' }] };
  }
  const src = input as Record<string, unknown>;
  const seen = new Map<string, string>();
  const take = (path: string, callerName: string, raw: unknown) => {
    if (raw === undefined || raw === null) return;
    const res = checkLeadField(path, raw, today);
    if ('error' in res) {
      errors.push({ field: callerName, code: 'INVALID_FIELD', message: `${callerName} ${res.error}` });
      return;
    }
    const [group, field] = path.split('.');
    const prior = seen.get(path);
    if (prior !== undefined && lead[group]?.[field] !== res.value) {
      errors.push({ field: callerName, code: 'INVALID_FIELD', message: `${callerName} conflicts with ${prior}` });
      return;
    }
    seen.set(path, callerName);
    (lead[group] ??= {})[field] = res.value;
  };
  for (const [group, fields] of Object.entries(LEAD_GROUPS)) {
    const g = src[group];
    if (g === undefined || g === null) continue;
    if (typeof g !== 'object' || Array.isArray(g)) {
      errors.push({ field: `${prefix}.${group}`, code: 'INVALID_FIELD', message: `${prefix}.${group} must be an object` });
      continue;
    }
    for (const f of fields) take(`${group}.${f}`, `${prefix}.${group}.${f}`, (g as Record<string, unknown>)[f]);
  }
  for (const [flat, path] of Object.entries(FLAT_LEAD_KEYS)) {
    if (flat in LEAD_GROUPS) continue;
    const raw = src[flat];
    if (flat === 'address' && raw !== null && typeof raw === 'object') continue; // the nested group, handled above
    take(path, `${prefix}.${flat}`, raw);
  }
  return { lead: lead as Lead, errors };
}
