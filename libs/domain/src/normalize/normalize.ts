import { createHash } from 'node:crypto';
import { parseIp } from '../ip-address';
import { usPhoneDigits } from '../lead-input';

/**
 * The contract's "Normalization before hashing" (affiliate-api.md, dupe-check):
 * each function brings one raw lead value to the form whose SHA-256 is compared
 * for duplicates, or answers undefined when the value cannot be normalized.
 * Pure: no framework, no I/O.
 */

/**
 * Letters of other scripts drawn exactly like a Latin letter (Unicode's
 * confusables.txt, its Cyrillic and Greek entries whose target is one Latin
 * letter), by case: Cyrillic "а" in "аda@…" or Greek "Ο" in "Οrtiz" is the
 * Latin letter a reader sees. Hand-written rather than a library's table:
 * the full confusables skeleton also maps ASCII to ASCII ("0" to "O", "1" and
 * "I" to "l", "rn" to "m"), which would change the normalized form of
 * ordinary emails and so no longer match the SHA-256 an affiliate computes by
 * the contract; the transliteration libraries map by sound (Cyrillic "с" to
 * "s"), not by shape. Only letters outside ASCII are here, so ASCII input is
 * normalized exactly as the contract says.
 */
const CONFUSABLE_LETTERS: Record<string, string> = {
  // Cyrillic capitals
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  Х: 'X',
  Ѕ: 'S',
  І: 'I',
  Ј: 'J',
  Ү: 'Y',
  Ԛ: 'Q',
  Ԝ: 'W',
  Ӏ: 'l',
  // Cyrillic small letters
  а: 'a',
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  у: 'y',
  х: 'x',
  ѕ: 's',
  і: 'i',
  ј: 'j',
  һ: 'h',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'l',
  ү: 'y',
  // Greek capitals
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  // Greek small letters
  α: 'a',
  ο: 'o',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ρ: 'p',
  υ: 'u',
  χ: 'x',
};
const CONFUSABLE_RE = new RegExp(`[${Object.keys(CONFUSABLE_LETTERS).join('')}]`, 'gu');

/** A letter of the scripts folded from: left after folding, the value is written in them, not disguised in them. */
const CYRILLIC_OR_GREEK = /[\p{Script=Cyrillic}\p{Script=Greek}]/u;

/**
 * What a raw email or last name is brought to before the contract's
 * normalization (docs/duplicates.md, "Look-alike characters"): NFKC (full-width
 * "ａｄａ" and mathematical letters to "ada", ligatures spelled out), without
 * default-ignorable code points (zero-width spaces and joiners, soft hyphens,
 * direction marks, variation selectors), and with look-alike Cyrillic and
 * Greek letters as the Latin letter they show. The look-alikes are folded only
 * when that leaves no Cyrillic or Greek letter: a name really written in
 * Cyrillic ("Орлова") is not turned into Latin fragments that another name
 * could share. ASCII text is unchanged, so a value an affiliate normalized by
 * the contract and hashed still matches.
 */
export function foldLookalikes(raw: string): string {
  const visible = raw.normalize('NFKC').replace(/\p{Default_Ignorable_Code_Point}/gu, '');
  const folded = visible.replace(CONFUSABLE_RE, (c) => CONFUSABLE_LETTERS[c]);
  return CYRILLIC_OR_GREEK.test(folded) ? visible : folded;
}

/** The two major free-mail domains whose local part ignores dots and +tags. */
const GMAIL_DOMAINS = new Set(['gmail.com', 'googlemail.com']);

/** Look-alikes folded (foldLookalikes); trimmed, lower-case; for gmail.com/googlemail.com dots and +tag removed and domain gmail.com. */
export function normalizeEmail(raw: string): string | undefined {
  const parts = foldLookalikes(raw).trim().toLowerCase().split('@');
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

/** Look-alikes folded (foldLookalikes); lower-case a-z only: accents stripped, special letters spelled out, everything else dropped. */
export function normalizeLastName(raw: string): string | undefined {
  const letters = foldLookalikes(raw)
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
