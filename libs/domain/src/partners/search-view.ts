import { ageOn } from '../lead-input';
import { hashOf } from '../normalize/dedupe-keys';
import type { LeadPayload } from '../vocabulary/lead';

/**
 * What a partner network is sent at search (docs/partner-adapter.md, "What a
 * partner receives"): a ping carries what the partner needs to quote, never
 * the consumer's contact data; the whole lead goes only to the partner chosen,
 * on submit. Each name is a path of the partner's search document, with what
 * it is: `default` (a partner without `search_fields` gets these: where the
 * consumer is, the education and background answers, an age band, and the
 * contract's hashed email and phone for its own duplicate check), `contact`
 * (reaches or identifies the consumer: `catalog apply` names a partner
 * configured for any), or `opt_in` (neither).
 */
const SEARCH_FIELD_KINDS = {
  'lead.personal.first_name': 'contact',
  'lead.personal.last_name': 'contact',
  'lead.personal.email': 'contact',
  'lead.personal.phone': 'contact',
  'lead.personal.date_of_birth': 'contact',
  'lead.personal.birth_year': 'opt_in',
  'lead.personal.age_band': 'default',
  'lead.address.address_line_1': 'contact',
  'lead.address.city': 'contact',
  'lead.address.state': 'default',
  'lead.address.zip_code': 'default',
  'lead.education.education_level': 'default',
  'lead.education.high_school_graduation_year': 'default',
  'lead.education.start_timeline': 'default',
  'lead.education.learning_preference': 'default',
  'lead.background.military_affiliation': 'default',
  'lead.background.us_citizen': 'default',
  'lead.hashed.email': 'default',
  'lead.hashed.phone': 'default',
  'tracking.ip_address': 'contact',
} as const satisfies Record<string, 'default' | 'contact' | 'opt_in'>;
export type SearchField = keyof typeof SEARCH_FIELD_KINDS;

export const SEARCH_FIELDS = Object.keys(SEARCH_FIELD_KINDS) as SearchField[];
const ofKind = (kind: string) => SEARCH_FIELDS.filter((f) => SEARCH_FIELD_KINDS[f] === kind);
export const DEFAULT_SEARCH_FIELDS: readonly SearchField[] = ofKind('default');
export const CONTACT_SEARCH_FIELDS: readonly SearchField[] = ofKind('contact');

/** The age bands of `lead.personal.age_band` (a lead's age is 13 to 100: LEAD-FIELDS.md). */
const AGE_BANDS: ReadonlyArray<{ from: number; band: string }> = [
  { from: 65, band: '65+' },
  { from: 55, band: '55-64' },
  { from: 45, band: '45-54' },
  { from: 35, band: '35-44' },
  { from: 25, band: '25-34' },
  { from: 18, band: '18-24' },
  { from: 0, band: 'under-18' },
];

/**
 * A search's lead and tracking: as the gateway took them, or their readable
 * part with the values the gateway derived from the contact data before it
 * sealed it (`derived`: partnerDerivedValues), which then stand in for the
 * lead's own.
 */
export interface PartnerSearchInput {
  lead: LeadPayload;
  tracking: Record<string, string>;
  derived?: PartnerDerivedValues;
}

/** What the domain derives from a lead for partners: the age band, the birth year, the hashed email and phone (by path). */
export type PartnerDerivedValues = Partial<Record<'personal.age_band' | 'personal.birth_year' | 'hashed.email' | 'hashed.phone', string>>;

/** The lead as one partner sees it at search: the lead's groups narrowed to its fields, and `hashed` (SHA-256 hex of the contract's normalized forms). */
export interface PartnerSearchLead extends LeadPayload {
  hashed?: { email?: string; phone?: string };
}

/** What one partner is sent about a search. */
export interface PartnerSearchView {
  lead: PartnerSearchLead;
  tracking: Record<string, string>;
}

/** A partner's fields: the catalog's `search_fields` (settings), else the default. */
export function searchFieldsOf(settings: { search_fields?: readonly string[] } | null | undefined): readonly SearchField[] {
  return (settings?.search_fields as readonly SearchField[] | undefined) ?? DEFAULT_SEARCH_FIELDS;
}

/** The contact fields among a partner's search fields (empty for the default). */
export function contactFieldsAtSearch(fields: readonly SearchField[]): SearchField[] {
  return fields.filter((f) => CONTACT_SEARCH_FIELDS.includes(f));
}

/**
 * The one place a partner's view of a search is made (the search-orchestrator
 * calls it for each partner before the request is published): only the
 * fields named, the age band and birth year derived from the date of birth on
 * `today`, the hashed email and phone from the raw values. Tracking keeps the
 * affiliate's attribution keys; `ip_address` only when named. Pure.
 */
export function partnerSearchView(search: PartnerSearchInput, fields: readonly SearchField[], today: Date): PartnerSearchView {
  const wanted = new Set<string>(fields);
  const source = search.lead as Record<string, Record<string, string> | undefined>;
  const derived: Record<string, string | undefined> = search.derived ?? partnerDerivedValues(search.lead, today);
  const lead: Record<string, Record<string, string>> = {};
  for (const field of fields) {
    if (!field.startsWith('lead.')) continue;
    const [, group, key] = field.split('.');
    const value = group === 'hashed' || key === 'age_band' || key === 'birth_year' ? derived[`${group}.${key}`] : source[group]?.[key];
    if (value === undefined) continue;
    (lead[group] ??= {})[key] = value;
  }
  const tracking: Record<string, string> = {};
  for (const [key, value] of Object.entries(search.tracking)) {
    if (key !== 'ip_address' || wanted.has('tracking.ip_address')) tracking[key] = value;
  }
  return { lead: lead as PartnerSearchLead, tracking };
}

/**
 * A partner's view completed with the contact fields it is configured for
 * (partner-adapter, at the moment of the call: the orchestrator made `view`
 * from the readable part, without them), from the search opened (`whole`).
 */
export function withContactAtSearch(
  view: PartnerSearchView,
  whole: PartnerSearchInput,
  fields: readonly SearchField[],
  today: Date,
): PartnerSearchView {
  const extra = partnerSearchView(whole, contactFieldsAtSearch(fields), today);
  const lead: Record<string, Record<string, string>> = { ...(view.lead as Record<string, Record<string, string>>) };
  for (const [group, values] of Object.entries(extra.lead as Record<string, Record<string, string>>))
    lead[group] = { ...lead[group], ...values };
  return { lead: lead as PartnerSearchLead, tracking: { ...view.tracking, ...extra.tracking } };
}

/** The values the domain derives from the lead: age band and birth year from the date of birth, hashed email and phone. */
export function partnerDerivedValues(lead: LeadPayload, today: Date): PartnerDerivedValues {
  const dob = /^(\d{4})-(\d{2})-(\d{2})$/.exec(lead.personal?.date_of_birth ?? '');
  const age = dob ? ageOn(new Date(Date.UTC(Number(dob[1]), Number(dob[2]) - 1, Number(dob[3]))), today) : undefined;
  const email = lead.personal?.email;
  const phone = lead.personal?.phone;
  return {
    'personal.age_band': age === undefined ? undefined : AGE_BANDS.find((b) => age >= b.from)?.band,
    'personal.birth_year': dob?.[1],
    'hashed.email': email === undefined ? undefined : hashOf('email', email),
    'hashed.phone': phone === undefined ? undefined : hashOf('phone', phone),
  };
}

/** A partner of a catalog that is configured to receive contact data at search, and which. */
export interface ContactAtSearch {
  partnerId: string;
  partnerName: string;
  fields: SearchField[];
}

/** The partners of a validated catalog file sent contact data at search (`catalog apply` and `validate` name them). */
export function partnersWithContactAtSearch(
  partners: ReadonlyArray<{ id: string; name: string; settings: { search_fields?: readonly string[] } | null }>,
): ContactAtSearch[] {
  return partners.flatMap((p) => {
    const fields = contactFieldsAtSearch(searchFieldsOf(p.settings));
    return fields.length === 0 ? [] : [{ partnerId: p.id, partnerName: p.name, fields }];
  });
}
