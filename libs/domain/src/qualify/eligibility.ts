import type { EligibilityRules } from '../catalog/catalog.types';
import { ELIGIBILITY_KEYS } from '../catalog/validate-eligibility';
import { ageOn, type Lead } from '../lead-input';

/** One eligibility key of an offer or program; names the rule a lead failed. */
export type EligibilityRule = keyof EligibilityRules;

export type EligibilityCheck = { eligible: true } | { eligible: false; rule: EligibilityRule };

/** A program as eligibility sees it: its value and its own rules (which narrow its offer's). */
export interface EligibilityProgram {
  value: string;
  eligibility: EligibilityRules;
}

export type OfferQualification =
  | { ok: true; programs: string[] }
  | { ok: false; refusal: 'not_eligible'; detail: EligibilityRule }
  | { ok: false; refusal: 'no_eligible_program'; detail: string };

type RuleCheck<K extends EligibilityRule> = (rule: NonNullable<EligibilityRules[K]>, lead: Lead, today: Date) => boolean;

const lower = (v: string | undefined): string | undefined => v?.toLowerCase();

/** True when the lead's value is one of the listed ones (case-insensitive); a missing value never is. */
function inList(list: readonly string[], value: string | undefined): boolean {
  const v = lower(value);
  return v !== undefined && list.some((item) => item.toLowerCase() === v);
}

/** Age on `today` from a `YYYY-MM-DD` date of birth; undefined when there is none or it is not such a date. */
function leadAge(lead: Lead, today: Date): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(lead.personal?.date_of_birth ?? '');
  return m ? ageOn(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))), today) : undefined;
}

function gradYear(lead: Lead): number | undefined {
  const y = lead.education?.high_school_graduation_year;
  return y !== undefined && /^\d{4}$/.test(y) ? Number(y) : undefined;
}

const atLeast = (value: number | undefined, min: number): boolean => value !== undefined && value >= min;
const atMost = (value: number | undefined, max: number): boolean => value !== undefined && value <= max;

/** How each key holds for a lead. Bounds are inclusive; a lead without the field fails the key. */
const RULE_CHECKS: { [K in EligibilityRule]: RuleCheck<K> } = {
  states: (states, lead) => inList(states, lead.address?.state),
  min_age: (min, lead, today) => atLeast(leadAge(lead, today), min),
  max_age: (max, lead, today) => atMost(leadAge(lead, today), max),
  education_levels: (levels, lead) => inList(levels, lead.education?.education_level),
  min_hs_grad_year: (min, lead) => atLeast(gradYear(lead), min),
  max_hs_grad_year: (max, lead) => atMost(gradYear(lead), max),
  military_affiliations: (list, lead) => inList(list, lead.background?.military_affiliation),
  learning_preferences: (list, lead) => inList(list, lead.education?.learning_preference),
  start_timelines: (list, lead) => inList(list, lead.education?.start_timeline),
  us_citizen: (citizen, lead) => lower(lead.background?.us_citizen) === (citizen ? 'yes' : 'no'),
  zip_prefixes: (prefixes, lead) => {
    const zip = lead.address?.zip_code;
    return zip !== undefined && prefixes.some((p) => zip.startsWith(p));
  },
};

/**
 * Checks every present key of `rules` against the lead, in the catalog's key
 * order (ELIGIBILITY_KEYS): states, min_age, max_age, education_levels,
 * min_hs_grad_year, max_hs_grad_year, military_affiliations,
 * learning_preferences, start_timelines, us_citizen, zip_prefixes. The first
 * key that does not hold is reported. List values match case-insensitively.
 */
export function checkEligibility(rules: EligibilityRules, lead: Lead, today: Date): EligibilityCheck {
  for (const rule of ELIGIBILITY_KEYS) {
    const value = rules[rule];
    if (value === undefined) continue;
    const check = RULE_CHECKS[rule] as RuleCheck<typeof rule>;
    if (!check(value as never, lead, today)) return { eligible: false, rule };
  }
  return { eligible: true };
}

/**
 * Whether a lead qualifies for an offer and which of its programs. The offer's
 * rules must hold first (`not_eligible`, detail the failing rule). An offer
 * without programs qualifies with `programs: []`. Otherwise the programs whose
 * own rules also hold qualify, in the given order; when none does the refusal is
 * `no_eligible_program` with detail `programs.<value>.<rule>` of the first program.
 */
export function qualifyOffer(
  offerRules: EligibilityRules,
  programs: readonly EligibilityProgram[],
  lead: Lead,
  today: Date,
): OfferQualification {
  const offer = checkEligibility(offerRules, lead, today);
  if (!offer.eligible) return { ok: false, refusal: 'not_eligible', detail: offer.rule };
  if (programs.length === 0) return { ok: true, programs: [] };
  const qualifying: string[] = [];
  const failures: string[] = [];
  for (const p of programs) {
    const check = checkEligibility(p.eligibility, lead, today);
    if (check.eligible) qualifying.push(p.value);
    else failures.push(`programs.${p.value}.${check.rule}`);
  }
  if (qualifying.length > 0) return { ok: true, programs: qualifying };
  return { ok: false, refusal: 'no_eligible_program', detail: failures[0] };
}
