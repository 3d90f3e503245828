import { EDUCATION_LEVELS, LEARNING_PREFERENCES, MILITARY_AFFILIATIONS, START_TIMELINES, US_STATES } from '../lead-vocabulary';
import type { EligibilityRules } from './catalog.types';
import { childPath, JsonReader } from './json-reader';

type ListKey = 'states' | 'education_levels' | 'military_affiliations' | 'learning_preferences' | 'start_timelines';

/** Eligibility keys whose values come from a LEAD-FIELDS.md vocabulary. */
const LIST_RULES: Record<ListKey, { values: readonly string[]; what: string }> = {
  states: { values: US_STATES, what: 'a USPS state code' },
  education_levels: { values: EDUCATION_LEVELS, what: 'an education level' },
  military_affiliations: { values: MILITARY_AFFILIATIONS, what: 'a military affiliation' },
  learning_preferences: { values: LEARNING_PREFERENCES, what: 'a learning preference' },
  start_timelines: { values: START_TIMELINES, what: 'a start timeline' },
};

export const ELIGIBILITY_KEYS = [
  'states',
  'min_age',
  'max_age',
  'education_levels',
  'min_hs_grad_year',
  'max_hs_grad_year',
  'military_affiliations',
  'learning_preferences',
  'start_timelines',
  'us_citizen',
  'zip_prefixes',
] as const;

/** Ages a lead may have at all (LEAD-FIELDS.md: date of birth gives an age from 13 to 100). */
const AGE_RANGE = [13, 100] as const;
const GRAD_YEAR_RANGE = [1900, 2100] as const;

/**
 * Checks an `eligibility` object of an offer or program. Values must be the
 * canonical vocabulary values (states upper-case, everything else lower-case),
 * so what is stored is exactly what the checks compare against.
 */
export function readEligibility(r: JsonReader, v: unknown, path: string): EligibilityRules | undefined {
  if (v === undefined || v === null) return {};
  const o = r.object(v, path, ELIGIBILITY_KEYS, []);
  if (!o) return undefined;
  const before = r.issues.length;
  const out: EligibilityRules = {};
  for (const key of Object.keys(LIST_RULES) as ListKey[]) {
    if (o[key] === undefined) continue;
    const list = readList(r, o[key], childPath(path, key), LIST_RULES[key]);
    if (list) out[key] = list;
  }
  for (const [min, max, range] of [
    ['min_age', 'max_age', AGE_RANGE],
    ['min_hs_grad_year', 'max_hs_grad_year', GRAD_YEAR_RANGE],
  ] as const) {
    const lo = o[min] === undefined ? undefined : r.integer(o[min], childPath(path, min), range[0], range[1]);
    const hi = o[max] === undefined ? undefined : r.integer(o[max], childPath(path, max), range[0], range[1]);
    if (lo !== undefined) out[min] = lo;
    if (hi !== undefined) out[max] = hi;
    if (lo !== undefined && hi !== undefined && lo > hi) r.fail(childPath(path, min), `must not be greater than ${max} (${lo} > ${hi})`);
  }
  if (o.us_citizen !== undefined) {
    const b = r.boolean(o.us_citizen, childPath(path, 'us_citizen'));
    if (b !== undefined) out.us_citizen = b;
  }
  if (o.zip_prefixes !== undefined) {
    const p = childPath(path, 'zip_prefixes');
    const arr = r.array(o.zip_prefixes, p, { nonEmpty: true });
    if (arr) {
      const prefixes = arr.map((z, i) =>
        r.string(z, childPath(p, i), { pattern: /^\d{1,5}$/, patternHint: `must be 1 to 5 digits, got ${JSON.stringify(z)}` }),
      );
      checkDuplicates(r, arr, p);
      if (prefixes.every((z) => z !== undefined)) out.zip_prefixes = prefixes as string[];
    }
  }
  return r.issues.length === before ? out : undefined;
}

function readList(r: JsonReader, v: unknown, path: string, rule: { values: readonly string[]; what: string }): string[] | undefined {
  const arr = r.array(v, path, { nonEmpty: true });
  if (!arr) return undefined;
  const out: string[] = [];
  let ok = true;
  arr.forEach((item, i) => {
    const p = childPath(path, i);
    if (typeof item !== 'string') {
      ok = false;
      r.fail(p, `must be a string, ${rule.what}`);
    } else if (!rule.values.includes(item)) {
      ok = false;
      r.fail(p, `must be ${rule.what}, one of ${rule.values.join(', ')}; got ${JSON.stringify(item)}`);
    } else out.push(item);
  });
  if (!checkDuplicates(r, arr, path)) ok = false;
  return ok ? out : undefined;
}

function checkDuplicates(r: JsonReader, arr: unknown[], path: string): boolean {
  const seen = new Map<unknown, number>();
  let ok = true;
  arr.forEach((item, i) => {
    const first = seen.get(item);
    if (first !== undefined) {
      ok = false;
      r.fail(childPath(path, i), `duplicate value ${JSON.stringify(item)} (also at ${childPath(path, first)})`);
    } else seen.set(item, i);
  });
  return ok;
}
