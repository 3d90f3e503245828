import canonicalize from 'canonicalize';
import type { Lead } from '../lead-input';
import type { PersonKeySecret } from '../normalize/person-key';
import type { TestMode } from '../test-mode/test-mode';
import type { IpSource } from '../vocabulary/lead';
import { leadOptOutKeys, OptOutKey } from './opt-outs';

/**
 * Erasing a person (docs/deletion.md): a consumer's deletion request removes
 * their contact data (names, email, phone, street address, date of birth, the
 * IP address that identifies them) from every record of them, and keeps what
 * holds none (sales, payouts, cap usage, counts, the duplicate keys' hashes,
 * offer decisions) so that reports and money still add up, and the consent
 * record the law obliges the seller to keep.
 */

/**
 * What a lead document keeps: the facts offers are decided on that reach
 * nobody (the state, education and background vocabularies of
 * LEAD-FIELDS.md). It is a list of what is kept, not of what is erased: a
 * field added to the lead later is erased until it is named here.
 */
export const KEPT_LEAD_FIELDS = {
  address: ['state'],
  education: ['education_level', 'high_school_graduation_year', 'start_timeline', 'learning_preference'],
  background: ['military_affiliation', 'us_citizen'],
} as const satisfies { [G in keyof Lead]?: ReadonlyArray<keyof NonNullable<Lead[G]>> };

/** The lead document without contact data: only KEPT_LEAD_FIELDS remain, in their groups (a group left empty goes). */
export function eraseLeadDocument(lead: Lead): Lead {
  const erased: Record<string, Record<string, string>> = {};
  for (const [group, fields] of Object.entries(KEPT_LEAD_FIELDS) as Array<[string, readonly string[]]>) {
    const from = (lead as Record<string, Record<string, string> | undefined>)[group];
    if (!from || typeof from !== 'object') continue;
    for (const field of fields) {
      const value = from[field];
      if (typeof value === 'string') (erased[group] ??= {})[field] = value;
    }
  }
  return erased as Lead;
}

/** Whether a lead document is the person's: its email or phone normalizes and hashes to one of their keys (the duplicate keys' normalization). */
export function holdsPerson(secret: PersonKeySecret, lead: Lead, keys: readonly OptOutKey[]): boolean {
  const wanted = new Set(keys.map((k) => `${k.type}:${k.hash}`));
  return leadOptOutKeys(secret, lead).some((k) => wanted.has(`${k.type}:${k.hash}`));
}

/** What an erased IP address reads: the columns that hold one cannot be null. */
export const ERASED_IP = '';

/**
 * The IP as kept: the consumer's address identifies them and is erased; an
 * affiliate server's address recorded in its place (`caller_server`) is the
 * affiliate's, and stays.
 */
export function eraseConsumerIp(ip: string, source: IpSource): string {
  return source === 'consumer' ? ERASED_IP : ip;
}

/** The person's contact values, to find where free text repeats them (a buyer's reason quoting the person, a tracking value). */
export interface ContactValues {
  /** Email, names, street, city, date of birth: matched whole, ignoring case. */
  texts: string[];
  /** Phones as 10 US digits: matched however punctuated, with or without +1. */
  phones: string[];
}

/** The values of lead documents (before their erasure) and of what the operator typed. */
export function contactValuesOf(
  leads: readonly Lead[],
  typed: { emails?: readonly string[]; phones?: readonly string[] } = {},
): ContactValues {
  const texts = new Set<string>();
  const phones = new Set<string>();
  const text = (v: string | undefined) => {
    const t = v?.trim();
    if (t && t.length >= 2) texts.add(t.toLowerCase());
  };
  const phone = (v: string | undefined) => {
    let digits = v?.replace(/\D/g, '') ?? '';
    if (digits.length === 11 && digits.startsWith('1')) digits = digits.slice(1);
    if (digits.length === 10) phones.add(digits);
  };
  for (const lead of leads) {
    const p = lead.personal ?? {};
    [p.email, p.first_name, p.last_name, lead.address?.address_line_1, lead.address?.city].forEach(text);
    for (const form of datesOf(p.date_of_birth)) text(form);
    phone(p.phone);
  }
  typed.emails?.forEach(text);
  typed.phones?.forEach(phone);
  return { texts: [...texts], phones: [...phones] };
}

/** A date of birth as stored (YYYY-MM-DD) and as people write it (M/D/YYYY, MM/DD/YYYY). */
function datesOf(dob: string | undefined): string[] {
  const m = dob ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(dob.trim()) : null;
  if (!m) return dob ? [dob] : [];
  const [, y, mo, d] = m;
  return [dob!.trim(), `${Number(mo)}/${Number(d)}/${y}`, `${mo}/${d}/${y}`];
}

/** What stands in free text where a contact value was. */
export const ERASED_TEXT = '[erased]';

/** Free text with every contact value replaced by ERASED_TEXT (an email, a name as a whole word, a phone however written). */
export function maskContactText(text: string, values: ContactValues): string {
  let out = text;
  for (const v of [...values.texts].sort((a, b) => b.length - a.length)) {
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(v)}(?![\\p{L}\\p{N}])`, 'giu'), ERASED_TEXT);
  }
  for (const digits of values.phones) {
    const spaced = [...digits].join('[\\s().\\-]*');
    out = out.replace(new RegExp(`(?<!\\d)(?:\\+?1[\\s.\\-]*)?\\(?${spaced}(?!\\d)`, 'g'), ERASED_TEXT);
  }
  return out;
}

/** A JSON value (answers, tracking, a buyer's receipt) with contact values masked in every string it holds. */
export function maskContactJson<T>(value: T, values: ContactValues): T {
  if (typeof value === 'string') return maskContactText(value, values) as T;
  if (Array.isArray(value)) return value.map((v) => maskContactJson(v, values)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskContactJson(v, values)])) as T;
  }
  return value;
}

/** Whether two JSON values are the same (key order aside). */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalize(a) === canonicalize(b);
}

/** The contact columns a search and a lead both hold. */
export interface StoredContact {
  lead: Lead;
  /** The tracking as sent: `ip_address` is the consumer IP the affiliate reported. */
  tracking: Record<string, string>;
  consumerIp: string;
  ipSource: IpSource;
}

/**
 * A stored search or lead without the person's contact data: the lead
 * document erased, the consumer IP erased (also as `tracking.ip_address`),
 * the affiliate's other tracking values kept with any contact value masked.
 */
export function eraseStoredContact(s: StoredContact, values: ContactValues): StoredContact {
  const { ip_address: _ip, ...tracking } = s.tracking;
  return {
    lead: eraseLeadDocument(s.lead),
    tracking: maskContactJson(tracking, values),
    consumerIp: eraseConsumerIp(s.consumerIp, s.ipSource),
    ipSource: s.ipSource,
  };
}

/**
 * An erased search's results expire at the erasure: a submit of one would
 * sell a lead without a person (and without the keys its suppression is
 * checked on), so it is refused as any expired result is (OFFER_UNAVAILABLE).
 */
export function expireAtErasure(expires: readonly Date[], at: Date): Date[] {
  return expires.map((e) => (e.getTime() < at.getTime() ? e : at));
}

/**
 * The consent evidence's fields, as the consent record states them
 * (consent-ledger.ts ConsentRecord: `tcpa_consent`, `statement`,
 * `button_label`, `ip`, `consented_at`, `form_cert_url`,
 * `universal_lead_cert`): every column of `consent_evidence` but its lead id.
 */
export const CONSENT_RECORD_FIELDS = [
  'tcpa_consent',
  'statement',
  'button_label',
  'ip',
  'consented_at',
  'form_cert_url',
  'universal_lead_cert',
] as const;

/** What an erasure does to a lead's consent evidence. */
export interface ConsentEvidenceErasure {
  /** The fields kept as they are. */
  kept: readonly string[];
  eraseIp: boolean;
  /** Whether contact values in the button label are masked. */
  maskButtonLabel: boolean;
}

/**
 * The consent evidence of a live lead is the record of consent the seller
 * must keep (5 years: docs/deletion.md) and what the consent ledger's record
 * is rebuilt from: it is kept whole, so `consent verify` still recomputes
 * every digest. A test lead's evidence is not chained and no buyer relies on
 * it: its consumer IP is erased and its button label masked.
 */
export function consentEvidenceErasure(mode: TestMode, ipSource: IpSource): ConsentEvidenceErasure {
  if (mode.chainsConsent) return { kept: CONSENT_RECORD_FIELDS, eraseIp: false, maskButtonLabel: false };
  const eraseIp = eraseConsumerIp('ip', ipSource) === ERASED_IP;
  return { kept: CONSENT_RECORD_FIELDS.filter((f) => f !== 'button_label' && (f !== 'ip' || !eraseIp)), eraseIp, maskButtonLabel: true };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
