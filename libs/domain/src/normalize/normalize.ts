import { createHash } from 'node:crypto';
import { parseIp } from '../ip-address';
import { usPhoneDigits } from '../lead-input';

/**
 * The contract's "Normalization before hashing" (affiliate-api.md, dupe-check):
 * each function brings one raw lead value to the form whose SHA-256 is compared
 * for duplicates, or answers undefined when the value cannot be normalized.
 * Pure: no framework, no I/O.
 */

/** The two major free-mail domains whose local part ignores dots and +tags. */
const GMAIL_DOMAINS = new Set(['gmail.com', 'googlemail.com']);

/** Trimmed, lower-case; for gmail.com/googlemail.com dots and +tag removed and domain gmail.com. */
export function normalizeEmail(raw: string): string | undefined {
  const parts = raw.trim().toLowerCase().split('@');
  if (parts.length !== 2) return undefined;
  let [local, domain] = parts;
  if (GMAIL_DOMAINS.has(domain)) {
    local = local.replace(/\+.*$/, '').replace(/\./g, '');
    domain = 'gmail.com';
  }
  return local !== '' && domain !== '' ? `${local}@${domain}` : undefined;
}

/** The 10 US digits, no country code, no punctuation. */
export function normalizePhone(raw: string): string | undefined {
  return usPhoneDigits(raw.trim());
}

/** Letters that do not decompose into a base letter and a mark (lower-case forms; upper case is lowered first). */
const SPECIAL_LETTERS: Record<string, string> = {
  ł: 'l',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  æ: 'ae',
  œ: 'oe',
  ß: 'ss',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
};
const SPECIAL_LETTER_RE = new RegExp(`[${Object.keys(SPECIAL_LETTERS).join('')}]`, 'g');

/** Lower-case a-z only: accents stripped, special letters spelled out, everything else dropped. */
export function normalizeLastName(raw: string): string | undefined {
  const letters = raw
    .normalize('NFD')
    .replace(/\p{M}/gu, '') // é→e, ñ→n, İ→I
    .toLowerCase() // Ł→ł, ẞ→ß, …
    .replace(SPECIAL_LETTER_RE, (c) => SPECIAL_LETTERS[c])
    .replace(/[^a-z]/g, ''); // spaces, hyphens, apostrophes and anything else
  return letters !== '' ? letters : undefined;
}

/** The 5 digits; a +4 (12345-6789 or 123456789) is dropped. */
export function normalizeZip(raw: string): string | undefined {
  return /^(\d{5})(?:-?\d{4})?$/.exec(raw.trim())?.[1];
}

/** YYYY-MM-DD from YYYY-MM-DD or M/D/YYYY (one or two digits for month and day); a real calendar date. */
export function normalizeDob(raw: string): string | undefined {
  const v = raw.trim();
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  const us = iso ? undefined : /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(v);
  const ymd = iso ? [iso[1], iso[2], iso[3]] : us ? [us[3], us[1], us[2]] : undefined;
  if (!ymd) return undefined;
  const [y, m, d] = ymd.map(Number);
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d); // unlike Date.UTC, keeps years 0-99 as written
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return undefined;
  return `${ymd[0]}-${ymd[1].padStart(2, '0')}-${ymd[2].padStart(2, '0')}`;
}

function fourDigits(raw: string): string | undefined {
  const v = raw.trim();
  return /^\d{4}$/.test(v) ? v : undefined;
}

/** Four digits. */
export function normalizeBirthYear(raw: string): string | undefined {
  return fourDigits(raw);
}

/** Four digits. */
export function normalizeGradYear(raw: string): string | undefined {
  return fourDigits(raw);
}

/** First address of a forwarded list; IPv4 without leading zeros; IPv6 RFC 5952 lower-case; IPv4-mapped as IPv4. */
export function normalizeIp(raw: string): string | undefined {
  return parseIp(raw)?.normalized;
}

/** Lower-case hex SHA-256 of the UTF-8 text. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
