import { LEAD_GROUPS, type LeadGroup } from '@lr/domain';

/**
 * Contact data in operator output (DEVELOPERS.md: no raw email, phone or
 * name outside the lead's own rows): enough to recognize a person when a
 * caller describes them, never enough to contact them.
 *   email  jane.doe@example.com -> j***@e***.com
 *   phone  5125550147           -> ********47
 *   name   Lovelace             -> L***
 *   date of birth 1995-04-12    -> 1995-**-**, ZIP 75001 -> 750**, street -> ***
 */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  const labels = email.slice(at + 1).split('.');
  const tld = labels.length > 1 ? `.${labels.pop()}` : '';
  return `${firstChar(email)}***@${firstChar(labels[0] ?? '')}***${tld}`;
}

export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '').replace(/^1(?=\d{10}$)/, ''); // +1 (512) … is the same 10 digits
  return digits.length < 4 ? '***' : `${'*'.repeat(digits.length - 2)}${digits.slice(-2)}`;
}

export function maskName(name: string): string {
  return name.trim() === '' ? '' : `${firstChar(name.trim())}***`;
}

function maskDateOfBirth(dob: string): string {
  const m = /^(\d{4})-\d{2}-\d{2}$/.exec(dob.trim());
  return m ? `${m[1]}-**-**` : '***';
}

export function maskZip(zip: string): string {
  const m = /^(\d{3})\d{2}/.exec(zip.trim());
  return m ? `${m[1]}**` : '***';
}

function firstChar(s: string): string {
  return [...s][0] ?? '';
}

type Masker = (value: string) => string;
const HIDE: Masker = () => '***';
const SHOW: Masker = (v) => v;

/** How each lead field is shown; a field not listed in a group with contact data is hidden. */
const FIELD_MASKS: Record<string, Record<string, Masker> & { '*': Masker }> = {
  personal: { first_name: maskName, last_name: maskName, email: maskEmail, phone: maskPhone, date_of_birth: maskDateOfBirth, '*': HIDE },
  address: { address_line_1: HIDE, city: SHOW, state: SHOW, zip_code: maskZip, '*': HIDE },
  education: { '*': SHOW },
  background: { '*': SHOW },
};

export type MaskedLead = Record<string, Record<string, string>>;

/**
 * A stored lead (groups personal, address, education, background) with its
 * contact data masked, in the contract's order of groups and fields (jsonb
 * keeps its own order); fields the contract does not name come last.
 */
export function maskLead(lead: unknown): MaskedLead {
  const out: MaskedLead = {};
  if (lead === null || typeof lead !== 'object') return out;
  for (const [group, fields] of inContractOrder(lead as Record<string, unknown>, Object.keys(LEAD_GROUPS))) {
    if (fields === null || typeof fields !== 'object') continue;
    const masks = FIELD_MASKS[group] ?? { '*': HIDE };
    const known: readonly string[] = LEAD_GROUPS[group as LeadGroup] ?? [];
    out[group] = {};
    for (const [name, value] of inContractOrder(fields as Record<string, unknown>, known)) {
      out[group][name] = (masks[name] ?? masks['*'])(String(value));
    }
  }
  return out;
}

function inContractOrder(o: Record<string, unknown>, order: readonly string[]): Array<[string, unknown]> {
  const rank = (k: string) => (order.includes(k) ? order.indexOf(k) : order.length);
  return Object.entries(o).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const EMAIL_RE = /[^\s@<>"'(),;:]+@[^\s@<>"'(),;:]+\.[A-Za-z]{2,}/g;
/** A US phone number in any usual writing, not inside an id (hex, dashes). */
const PHONE_RE = /(?<![\w-])(?:\+?1[\s.-]?)?\(?\d{3}\)?[\s.-]?\d{3}[\s.-]?\d{4}(?![\w-])/g;

/**
 * Masks one lead's contact data wherever it appears in free text: a school's
 * refusal that quotes the email, a tracking value, a consent label. The lead's
 * own names, street, email and phone are replaced (names as whole words,
 * case-insensitively), then any other email address or phone number.
 */
export function contactScrubber(lead: unknown): (text: string) => string {
  const personal = pick(lead, 'personal');
  const address = pick(lead, 'address');
  const known: Array<[RegExp, Masker]> = [];
  const add = (raw: unknown, masked: (v: string) => string, wholeWord: boolean) => {
    if (typeof raw !== 'string' || raw.trim().length < 2) return;
    const body = escapeRe(raw.trim());
    known.push([new RegExp(wholeWord ? `(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])` : body, 'giu'), masked]);
  };
  add(personal.email, maskEmail, false);
  add(address.address_line_1, HIDE, false);
  add(personal.first_name, maskName, true);
  add(personal.last_name, maskName, true);
  return (text) => {
    let out = text;
    for (const [re, masked] of known) out = out.replace(re, (m) => masked(m));
    return out.replace(EMAIL_RE, (m) => maskEmail(m)).replace(PHONE_RE, (m) => maskPhone(m));
  };
}

function pick(lead: unknown, group: string): Record<string, unknown> {
  const g = lead !== null && typeof lead === 'object' ? (lead as Record<string, unknown>)[group] : undefined;
  return g !== null && typeof g === 'object' ? (g as Record<string, unknown>) : {};
}

/** A deep copy with every string passed through `scrub` (object keys are kept). */
export function scrubStrings<T>(value: T, scrub: (text: string) => string): T {
  if (typeof value === 'string') return scrub(value) as T;
  if (Array.isArray(value)) return value.map((v) => scrubStrings(v, scrub)) as T;
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubStrings(v, scrub)])) as T;
}
