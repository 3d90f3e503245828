/**
 * Allowed lead values (LEAD-FIELDS.md, pinned). Matching is case-insensitive;
 * the canonical (lower-case) value is what is stored and compared.
 */
export const EDUCATION_LEVELS = [
  'less_than_high_school',
  'high_school',
  'ged',
  'some_college',
  'associate',
  'bachelor',
  'master',
  'doctorate',
] as const;

export const START_TIMELINES = ['immediately', '1_3_months', '3_6_months', '6_12_months', '12_plus_months', 'undecided'] as const;

export const LEARNING_PREFERENCES = ['online', 'campus', 'hybrid', 'no_preference'] as const;

export const MILITARY_AFFILIATIONS = ['none', 'active_duty', 'veteran', 'reserve', 'national_guard', 'spouse', 'dependent'] as const;

export const US_CITIZEN_VALUES = ['yes', 'no'] as const;

/** USPS codes: the 50 states, DC, territories and the military "states". */
export const US_STATES = [
  'AL',
  'AK',
  'AZ',
  'AR',
  'CA',
  'CO',
  'CT',
  'DE',
  'FL',
  'GA',
  'HI',
  'ID',
  'IL',
  'IN',
  'IA',
  'KS',
  'KY',
  'LA',
  'ME',
  'MD',
  'MA',
  'MI',
  'MN',
  'MS',
  'MO',
  'MT',
  'NE',
  'NV',
  'NH',
  'NJ',
  'NM',
  'NY',
  'NC',
  'ND',
  'OH',
  'OK',
  'OR',
  'PA',
  'RI',
  'SC',
  'SD',
  'TN',
  'TX',
  'UT',
  'VT',
  'VA',
  'WA',
  'WV',
  'WI',
  'WY',
  'DC',
  'AS',
  'GU',
  'MP',
  'PR',
  'VI',
  'UM',
  'FM',
  'MH',
  'PW',
  'AA',
  'AE',
  'AP',
] as const;

/** The lead fields whose value must come from a fixed list, by their nested path. */
export const LEAD_VOCABULARIES: Record<string, readonly string[]> = {
  'address.state': US_STATES,
  'education.education_level': EDUCATION_LEVELS,
  'education.start_timeline': START_TIMELINES,
  'education.learning_preference': LEARNING_PREFERENCES,
  'background.military_affiliation': MILITARY_AFFILIATIONS,
  'background.us_citizen': US_CITIZEN_VALUES,
};

/** Canonical form of a vocabulary value: state codes upper-case, everything else lower-case. */
export function canonicalVocabularyValue(path: string, value: string): string | undefined {
  const list = LEAD_VOCABULARIES[path];
  if (!list) return undefined;
  const wanted = path === 'address.state' ? value.trim().toUpperCase() : value.trim().toLowerCase();
  return list.includes(wanted) ? wanted : undefined;
}
