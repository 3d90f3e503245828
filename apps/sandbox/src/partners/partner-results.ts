import { createHash } from 'node:crypto';
import type { Markup, Match } from '../shared/sandbox-params';
import type { PartnerFormField, PartnerProgram, PartnerSearchResult } from './partner-protocol';

const PROGRAMS: PartnerProgram[] = [
  { value: 'bsn', label: 'BS in Nursing' },
  { value: 'rn-bsn', label: 'RN to BSN' },
  { value: 'mba', label: 'Master of Business Administration' },
  { value: 'bba', label: 'BBA in Business Administration' },
  { value: 'cj', label: 'BS in Criminal Justice' },
  { value: 'it', label: 'BS in Information Technology' },
  { value: 'cyber', label: 'BS in Cybersecurity' },
  { value: 'psych', label: 'BA in Psychology' },
  { value: 'ece', label: 'AA in Early Childhood Education' },
  { value: 'mha', label: 'MS in Healthcare Administration' },
];

const SCHOOL_KINDS = ['College', 'University', 'Institute of Technology', 'State University', 'Community College'];
const SCHOOL_WORDS = new Set(['college', 'university', 'institute', 'school', 'academy']);
const EXPIRIES = [600, 900, 1800, 3600];
const YES_NO = [
  { value: 'yes', label: 'Yes' },
  { value: 'no', label: 'No' },
];
const FIRST_GRAD_YEAR = 1970;
const LAST_GRAD_YEAR = 2026;

/**
 * The offers a search answers: all of them, none, or every other one (the
 * 1st, 3rd, 5th, …) for a mix of answered and silent offers.
 */
export function matchedOffers<T>(offers: T[], match: Match): T[] {
  if (match === 'none') return [];
  if (match === 'some') return offers.filter((_, i) => i % 2 === 0);
  return offers;
}

/**
 * A partner's result for one of its offers. Everything but partner_result_id
 * depends only on external_id, so the same offer looks the same in every
 * search; partner_result_id is stable within a search and differs between searches.
 */
export function partnerResult(partner: string, searchId: string, externalId: string, markup: Markup = 'none'): PartnerSearchResult {
  const h = digest(`offer:${externalId}`);
  const school = schoolFor(externalId, h);
  const programs = programsFor(externalId, 1 + (h[1] % 3));
  const result = {
    external_id: externalId,
    partner_result_id: `pr_${digest(`${partner}|${searchId}|${externalId}`).toString('hex').slice(0, 24)}`,
    programs,
    form_fields: formFieldsFor(h[2], programs),
    tcpa_text:
      `By clicking Request Info I agree that ${school.name} and its representatives may contact me about ` +
      'education opportunities at the email and phone number I provided, including by autodialed calls and ' +
      'text messages. Consent is not a condition of enrollment.',
    school,
    expires_in_seconds: EXPIRIES[h[3] % EXPIRIES.length],
  };
  return withMarkup(result, markup);
}

/** The hostile strings `markup` puts into a result: a script tag, an event handler, a javascript: link. */
export const HOSTILE_TEXT = {
  tcpa_text: '<script>alert(document.cookie)</script>By clicking Request Info I agree to be contacted.',
  school_name: 'Westlake <img src=x onerror=alert(1)> College',
  program_label: '<a href="javascript:alert(1)">BS in Nursing</a>',
  question_label: 'Graduation year <svg onload=alert(1)>',
} as const satisfies Record<Exclude<Markup, 'none'>, string>;

/** The result with `markup`'s display string made hostile (a question is added when the result asks none). */
function withMarkup(r: PartnerSearchResult, markup: Markup): PartnerSearchResult {
  switch (markup) {
    case 'none':
      return r;
    case 'tcpa_text':
      return { ...r, tcpa_text: HOSTILE_TEXT.tcpa_text };
    case 'school_name':
      return { ...r, school: { ...r.school, name: HOSTILE_TEXT.school_name } };
    case 'program_label':
      return { ...r, programs: r.programs.map((p, i) => (i === 0 ? { ...p, label: HOSTILE_TEXT.program_label } : p)) };
    case 'question_label':
      return {
        ...r,
        form_fields: [{ name: 'hostile_note', label: HOSTILE_TEXT.question_label, type: 'text', required: false }, ...r.form_fields],
      };
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** "westlake-001" → "Westlake College" (kind picked from the id's hash). */
function schoolFor(externalId: string, h: Buffer): { name: string; logo_url: string } {
  const words = externalId.split(/[^A-Za-z]+/).filter((w) => w.length > 0);
  const base =
    words.length > 0 ? words.map((w) => w[0].toUpperCase() + w.slice(1).toLowerCase()).join(' ') : `Sandbox School ${externalId}`;
  const hasKind = words.some((w) => SCHOOL_WORDS.has(w.toLowerCase()));
  const name = hasKind ? base : `${base} ${SCHOOL_KINDS[h[0] % SCHOOL_KINDS.length]}`;
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return { name, logo_url: `https://cdn.example.org/sandbox/${slug}.png` };
}

function programsFor(externalId: string, count: number): PartnerProgram[] {
  return PROGRAMS.map((p) => ({ p, rank: digest(`program:${externalId}:${p.value}`).readUInt32BE(0) }))
    .sort((a, b) => a.rank - b.rank)
    .slice(0, count)
    .map(({ p }) => ({ ...p }));
}

/** Some offers ask nothing, some several questions; a program-specific one when that program is offered. */
function formFieldsFor(bits: number, programs: PartnerProgram[]): PartnerFormField[] {
  const fields: PartnerFormField[] = [];
  if (bits & 1) {
    const years = [];
    for (let y = LAST_GRAD_YEAR; y >= FIRST_GRAD_YEAR; y--) years.push({ value: String(y), label: String(y) });
    fields.push({ name: 'hs_grad_year', label: 'High school graduation year', type: 'select', required: true, options: years });
  }
  if (bits & 2) {
    fields.push({
      name: 'has_computer_access',
      label: 'Do you have access to a computer with internet?',
      type: 'select',
      required: true,
      options: YES_NO,
    });
  }
  if (bits & 4) {
    fields.push({
      name: 'preferred_start',
      label: 'When would you like to start?',
      type: 'select',
      required: false,
      options: [
        { value: 'next_term', label: 'Next term' },
        { value: 'within_6_months', label: 'Within 6 months' },
        { value: 'later', label: 'Later' },
      ],
    });
  }
  if (bits & 8) {
    fields.push({ name: 'current_employer', label: 'Current employer', type: 'text', required: false });
  }
  const values = programs.map((p) => p.value);
  if (values.includes('rn-bsn')) {
    fields.push({
      name: 'rn_license',
      label: 'Do you hold an active RN license?',
      type: 'select',
      required: false,
      required_when: { program_ids: ['rn-bsn'] },
      options: YES_NO,
    });
  }
  if (values.includes('mba')) {
    fields.push({
      name: 'years_work_experience',
      label: 'Years of work experience',
      type: 'select',
      required: false,
      required_when: { program_ids: ['mba'] },
      options: [
        { value: '0-2', label: 'Less than 3' },
        { value: '3-5', label: '3 to 5' },
        { value: '6+', label: '6 or more' },
      ],
    });
  }
  return fields;
}
