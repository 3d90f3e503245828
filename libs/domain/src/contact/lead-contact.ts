import { ageOn, type Lead } from '../lead-input';
import type { DedupeKey } from '../normalize/dedupe-keys';
import type { PersonKeySecret } from '../normalize/person-key';
import type { StoredContact } from '../opt-outs/erasure';
import { leadOptOutKeys, type OptOutKey } from '../opt-outs/opt-outs';
import { partnerDerivedValues, type PartnerDerivedValues } from '../partners/search-view';
import type { TestMode } from '../test-mode/test-mode';

/**
 * What of a search or a lead is contact data, sealed at rest and in messages
 * (docs/security.md, Encryption at rest): the names, email, phone and date of
 * birth, the street and city, the consumer's IP (and the affiliate's
 * `tracking.ip_address`). What the rules read stays readable: the state, the
 * ZIP, education and background, and the age (whole years on the day it is
 * sealed) in place of the date of birth.
 */
export const CONTACT_LEAD_FIELDS = {
  personal: ['first_name', 'last_name', 'email', 'phone', 'date_of_birth'],
  address: ['address_line_1', 'city'],
} as const;

/** The sealed part of a stored search or lead. */
export interface ContactPart {
  /** The contact fields of the lead, in their groups. */
  lead: Lead;
  consumerIp: string;
  /** The affiliate's `tracking.ip_address`, when it sent one. */
  trackingIp?: string;
}

/** A record's contact columns split into what stays readable and what is sealed. */
export function splitContact(c: StoredContact, today: Date): { readable: StoredContact; contact: ContactPart } {
  const readable: Record<string, Record<string, string>> = {};
  const sealed: Record<string, Record<string, string>> = {};
  for (const [group, fields] of Object.entries(c.lead) as Array<[string, Record<string, string> | string | undefined]>) {
    if (!fields || typeof fields !== 'object') continue;
    const contactFields: readonly string[] = (CONTACT_LEAD_FIELDS as Record<string, readonly string[]>)[group] ?? [];
    for (const [field, value] of Object.entries(fields))
      (contactFields.includes(field) ? (sealed[group] ??= {}) : (readable[group] ??= {}))[field] = value;
  }
  const age = readableAge(c.lead, today);
  const { ip_address: trackingIp, ...tracking } = c.tracking;
  return {
    readable: { lead: { ...(readable as Lead), ...(age === undefined ? {} : { age }) }, tracking, consumerIp: '', ipSource: c.ipSource },
    contact: { lead: sealed as Lead, consumerIp: c.consumerIp, ...(trackingIp === undefined ? {} : { trackingIp }) },
  };
}

/** Whether a record holds any contact data to seal (a result submit's fields may hold none: they are sent as they are). */
export function holdsContact(c: StoredContact): boolean {
  if (c.consumerIp !== '' || c.tracking.ip_address !== undefined) return true;
  const lead = c.lead as Record<string, Record<string, string> | undefined>;
  return Object.entries(CONTACT_LEAD_FIELDS).some(([group, fields]) => fields.some((f: string) => lead[group]?.[f] !== undefined));
}

/** The record's contact columns as they were sent: the readable part with its sealed part opened (null: unreadable, e.g. deleted). */
export function joinContact(readable: StoredContact, contact: ContactPart | null): StoredContact {
  if (!contact) return readable;
  const { age: _age, ...lead } = readable.lead;
  const joined: Record<string, Record<string, string>> = {};
  for (const part of [lead, contact.lead])
    for (const [group, fields] of Object.entries(part) as Array<[string, Record<string, string>]>)
      Object.assign((joined[group] ??= {}), fields);
  return {
    lead: joined as Lead,
    tracking: contact.trackingIp === undefined ? readable.tracking : { ...readable.tracking, ip_address: contact.trackingIp },
    consumerIp: contact.consumerIp,
    ipSource: readable.ipSource,
  };
}

function readableAge(lead: Lead, today: Date): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(lead.personal?.date_of_birth ?? '');
  if (!m) return lead.age;
  return String(ageOn(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))), today));
}

/**
 * What a search's rules and partners need of its contact data, derived by the
 * gateway before it seals it, so that the search-orchestrator never opens it:
 * the person keys of the duplicate check, the keys its suppression is looked
 * up by, and what partners are sent in their place (age band, birth year,
 * the contract's hashed email and phone).
 */
export interface SearchDerived {
  personKeys: DedupeKey[];
  optOutKeys: OptOutKey[];
  partner: PartnerDerivedValues;
}

export function deriveSearch(secret: PersonKeySecret, lead: Lead, mode: TestMode, today: Date): SearchDerived {
  return {
    personKeys: mode.personKeys(secret, lead),
    optOutKeys: leadOptOutKeys(secret, lead),
    partner: partnerDerivedValues(lead, today),
  };
}
