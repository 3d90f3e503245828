import type { EligibilityRules } from '../catalog/catalog.types';
import { ELIGIBILITY_KEYS } from '../catalog/validate-eligibility';
import { ageOn, type Lead } from '../lead-input';

/** One eligibility key of an offer or program; names the rule a lead failed. */
export type EligibilityRule = keyof EligibilityRules;

/**
 * The facts a failed rule was decided on: the rule, what it asks for (the
 * catalog's value) and the lead's value it was checked against (the age for
 * `min_age`/`max_age`, the year for the grad-year bounds; null when the lead
 * has no such field, which fails every rule).
 */
export interface EligibilityFailure {
  eligible: false;
  rule: EligibilityRule;
  required: NonNullable<EligibilityRules[EligibilityRule]>;
  actual: string | number | null;
}

export type EligibilityCheck = { eligible: true } | EligibilityFailure;

/** A program as eligibility sees it: its value and its own rules (which narrow its offer's). */
export interface EligibilityProgram {
  value: string;
  eligibility: EligibilityRules;
}

/** How one program of an offer fared: its own rules checked after the offer's held. */
export interface ProgramCheck {
  value: string;
  check: EligibilityCheck;
}

export type OfferQualification =
  | { ok: true; programs: string[]; programChecks: ProgramCheck[] }
  | { ok: false; refusal: 'not_eligible'; detail: EligibilityRule; failure: EligibilityFailure }
  | { ok: false; refusal: 'no_eligible_program'; detail: string; programChecks: ProgramCheck[] };

/** A rule: which value of the lead it reads, and whether the catalog's value holds for it. */
interface RuleCheck<K extends EligibilityRule> {
  value: (lead: Lead, today: Date) => string | number | undefined;
  holds: (rule: NonNullable<EligibilityRules[K]>, value: string | number | undefined) => boolean;
}

const lower = (v: string | number | undefined): string | undefined => (v === undefined ? undefined : String(v).toLowerCase());

/**
 * Each catalog list's items as written and in lower case, made once per list
 * (a search judges every offer's lists, and the catalog's lists live as long
 * as its cache): a value written as the catalog writes it matches without
 * being lowered.
 */
const listItems = new WeakMap<readonly string[], ReadonlySet<string>>();

/** True when the lead's value is one of the listed ones (case-insensitive); a missing value never is. */
function inList(list: readonly string[], value: string | number | undefined): boolean {
  if (value === undefined) return false;
  let items = listItems.get(list);
  if (!items) listItems.set(list, (items = new Set([...list, ...list.map((item) => item.toLowerCase())])));
  return items.has(value as string) || items.has(String(value).toLowerCase());
}

/**
 * Age on `today` from a `YYYY-MM-DD` date of birth; a stored lead whose date
 * of birth is sealed gives its readable age instead (contact/lead-contact.ts);
 * undefined when there is neither.
 */
function leadAge(lead: Lead, today: Date): number | undefined {
  if (lead.personal?.date_of_birth === undefined && lead.age !== undefined)
    return /^\d{1,3}$/.test(lead.age) ? Number(lead.age) : undefined;
  const dob = lead.personal?.date_of_birth ?? '';
  const t = today.getTime();
  // The same lead is judged against every offer of a campaign at one time: its age is worked out once.
  if (dob === lastAge.dob && t === lastAge.today) return lastAge.age;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(dob);
  const age = m ? ageOn(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))), today) : undefined;
  lastAge = { dob, today: t, age };
  return age;
}

let lastAge: { dob: string; today: number; age: number | undefined } = { dob: '', today: NaN, age: undefined };

function gradYear(lead: Lead): number | undefined {
  const y = lead.education?.high_school_graduation_year;
  return y !== undefined && /^\d{4}$/.test(y) ? Number(y) : undefined;
}

const atLeast = (value: string | number | undefined, min: number): boolean => typeof value === 'number' && value >= min;
const atMost = (value: string | number | undefined, max: number): boolean => typeof value === 'number' && value <= max;

/** How each key holds for a lead. Bounds are inclusive; a lead without the field fails the key. */
const RULE_CHECKS: { [K in EligibilityRule]: RuleCheck<K> } = {
  states: { value: (lead) => lead.address?.state, holds: inList },
  min_age: { value: leadAge, holds: (min, age) => atLeast(age, min) },
  max_age: { value: leadAge, holds: (max, age) => atMost(age, max) },
  education_levels: { value: (lead) => lead.education?.education_level, holds: inList },
  min_hs_grad_year: { value: gradYear, holds: (min, year) => atLeast(year, min) },
  max_hs_grad_year: { value: gradYear, holds: (max, year) => atMost(year, max) },
  military_affiliations: { value: (lead) => lead.background?.military_affiliation, holds: inList },
  learning_preferences: { value: (lead) => lead.education?.learning_preference, holds: inList },
  start_timelines: { value: (lead) => lead.education?.start_timeline, holds: inList },
  us_citizen: { value: (lead) => lead.background?.us_citizen, holds: (citizen, v) => lower(v) === (citizen ? 'yes' : 'no') },
  zip_prefixes: {
    value: (lead) => lead.address?.zip_code,
    holds: (prefixes, zip) => typeof zip === 'string' && prefixes.some((p) => zip.startsWith(p)),
  },
};

/**
 * Checks every present key of `rules` against the lead, in the catalog's key
 * order (ELIGIBILITY_KEYS): states, min_age, max_age, education_levels,
 * min_hs_grad_year, max_hs_grad_year, military_affiliations,
 * learning_preferences, start_timelines, us_citizen, zip_prefixes. The first
 * key that does not hold is reported, with the facts it was decided on. List
 * values match case-insensitively.
 */
export function checkEligibility(rules: EligibilityRules, lead: Lead, today: Date): EligibilityCheck {
  for (const rule of presentRules(rules)) {
    const required = rules[rule];
    if (required === undefined) continue;
    const check = RULE_CHECKS[rule] as RuleCheck<typeof rule>;
    const actual = check.value(lead, today);
    if (!check.holds(required as never, actual)) return { eligible: false, rule, required, actual: actual ?? null };
  }
  return { eligible: true };
}

/** The keys a rules object sets, in the catalog's order; worked out once per rules object (catalog objects are never changed once read, and live as long as its cache). */
const presentKeys = new WeakMap<EligibilityRules, readonly EligibilityRule[]>();
function presentRules(rules: EligibilityRules): readonly EligibilityRule[] {
  let keys = presentKeys.get(rules);
  if (!keys) presentKeys.set(rules, (keys = ELIGIBILITY_KEYS.filter((k) => rules[k] !== undefined)));
  return keys;
}

/**
 * Whether a lead qualifies for an offer and which of its programs. The offer's
 * rules must hold first (`not_eligible`, detail the failing rule). An offer
 * without programs qualifies with `programs: []`. Otherwise the programs whose
 * own rules also hold qualify, in the given order; when none does the refusal is
 * `no_eligible_program` with detail `programs.<value>.<rule>` of the first program.
 * Every program's check is returned with the outcome (what explain shows program by program).
 */
export function qualifyOffer(
  offerRules: EligibilityRules,
  programs: readonly EligibilityProgram[],
  lead: Lead,
  today: Date,
): OfferQualification {
  const offer = checkEligibility(offerRules, lead, today);
  if (!offer.eligible) return { ok: false, refusal: 'not_eligible', detail: offer.rule, failure: offer };
  const programChecks = programs.map((p) => ({ value: p.value, check: checkEligibility(p.eligibility, lead, today) }));
  if (programs.length === 0) return { ok: true, programs: [], programChecks };
  const qualifying = programChecks.filter((p) => p.check.eligible).map((p) => p.value);
  if (qualifying.length > 0) return { ok: true, programs: qualifying, programChecks };
  const first = programChecks[0];
  return {
    ok: false,
    refusal: 'no_eligible_program',
    detail: `programs.${first.value}.${(first.check as EligibilityFailure).rule}`,
    programChecks,
  };
}
