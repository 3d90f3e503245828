import type { EligibilityRules } from '../catalog/catalog.types';
import type { Lead } from '../lead-input';
import { checkEligibility, qualifyOffer, type EligibilityRule } from './eligibility';

const TODAY = new Date('2025-06-15T12:00:00Z');

/** A lead that satisfies every rule of FULL_RULES. */
const LEAD: Lead = {
  personal: { date_of_birth: '1995-06-15' }, // 30 on TODAY
  address: { state: 'CA', zip_code: '90210-1234' },
  education: {
    education_level: 'bachelor',
    high_school_graduation_year: '2013',
    learning_preference: 'online',
    start_timeline: 'immediately',
  },
  background: { military_affiliation: 'veteran', us_citizen: 'yes' },
};

const FULL_RULES: Required<EligibilityRules> = {
  states: ['CA', 'TX'],
  min_age: 18,
  max_age: 65,
  education_levels: ['associate', 'bachelor'],
  min_hs_grad_year: 1970,
  max_hs_grad_year: 2026,
  military_affiliations: ['none', 'veteran'],
  learning_preferences: ['online', 'hybrid'],
  start_timelines: ['immediately', '1_3_months'],
  us_citizen: true,
  zip_prefixes: ['90', '75'],
};

/** The lead with one field replaced (or removed when `value` is undefined). */
function withField<G extends keyof Lead>(group: G, field: keyof NonNullable<Lead[G]>, value: string | undefined): Lead {
  const g: Record<string, string | undefined> = { ...(LEAD[group] as Record<string, string | undefined>) };
  if (value === undefined) delete g[field as string];
  else g[field as string] = value;
  return { ...LEAD, [group]: g };
}

const failsOn = (rule: EligibilityRule) => expect.objectContaining({ eligible: false, rule });
const ELIGIBLE = { eligible: true };
const refused = (refusal: string, detail: string) => expect.objectContaining({ ok: false, refusal, detail });

describe('checkEligibility', () => {
  it('passes a lead that satisfies every key', () => {
    expect(checkEligibility(FULL_RULES, LEAD, TODAY)).toEqual(ELIGIBLE);
  });

  it('passes any lead, even an empty one, when there are no rules', () => {
    expect(checkEligibility({}, {}, TODAY)).toEqual(ELIGIBLE);
  });

  // [rule, rules, passing lead, failing lead, lead without the field]
  const cases: Array<[EligibilityRule, EligibilityRules, Lead, Lead, Lead]> = [
    [
      'states',
      { states: ['CA'] },
      withField('address', 'state', 'CA'),
      withField('address', 'state', 'NY'),
      withField('address', 'state', undefined),
    ],
    [
      'min_age',
      { min_age: 30 },
      withField('personal', 'date_of_birth', '1995-06-15'),
      withField('personal', 'date_of_birth', '1995-06-16'),
      withField('personal', 'date_of_birth', undefined),
    ],
    [
      'max_age',
      { max_age: 30 },
      withField('personal', 'date_of_birth', '1994-06-16'),
      withField('personal', 'date_of_birth', '1994-06-15'),
      withField('personal', 'date_of_birth', undefined),
    ],
    [
      'education_levels',
      { education_levels: ['ged'] },
      withField('education', 'education_level', 'ged'),
      withField('education', 'education_level', 'master'),
      withField('education', 'education_level', undefined),
    ],
    [
      'min_hs_grad_year',
      { min_hs_grad_year: 2013 },
      withField('education', 'high_school_graduation_year', '2013'),
      withField('education', 'high_school_graduation_year', '2012'),
      withField('education', 'high_school_graduation_year', undefined),
    ],
    [
      'max_hs_grad_year',
      { max_hs_grad_year: 2013 },
      withField('education', 'high_school_graduation_year', '2013'),
      withField('education', 'high_school_graduation_year', '2014'),
      withField('education', 'high_school_graduation_year', undefined),
    ],
    [
      'military_affiliations',
      { military_affiliations: ['spouse'] },
      withField('background', 'military_affiliation', 'spouse'),
      withField('background', 'military_affiliation', 'none'),
      withField('background', 'military_affiliation', undefined),
    ],
    [
      'learning_preferences',
      { learning_preferences: ['campus'] },
      withField('education', 'learning_preference', 'campus'),
      withField('education', 'learning_preference', 'online'),
      withField('education', 'learning_preference', undefined),
    ],
    [
      'start_timelines',
      { start_timelines: ['undecided'] },
      withField('education', 'start_timeline', 'undecided'),
      withField('education', 'start_timeline', 'immediately'),
      withField('education', 'start_timeline', undefined),
    ],
    [
      'us_citizen',
      { us_citizen: true },
      withField('background', 'us_citizen', 'yes'),
      withField('background', 'us_citizen', 'no'),
      withField('background', 'us_citizen', undefined),
    ],
    [
      'us_citizen',
      { us_citizen: false },
      withField('background', 'us_citizen', 'no'),
      withField('background', 'us_citizen', 'yes'),
      withField('background', 'us_citizen', undefined),
    ],
    [
      'zip_prefixes',
      { zip_prefixes: ['902', '75'] },
      withField('address', 'zip_code', '90210'),
      withField('address', 'zip_code', '90310'),
      withField('address', 'zip_code', undefined),
    ],
  ];

  describe.each(cases)('%s %j', (rule, rules, passing, failing, missing) => {
    it('passes a lead that holds', () => expect(checkEligibility(rules, passing, TODAY)).toEqual(ELIGIBLE));
    it('fails a lead that does not', () => expect(checkEligibility(rules, failing, TODAY)).toEqual(failsOn(rule)));
    it('fails a lead without the field', () => expect(checkEligibility(rules, missing, TODAY)).toEqual(failsOn(rule)));
  });

  it('fails a lead without the whole group', () => {
    expect(checkEligibility({ states: ['CA'] }, { personal: LEAD.personal }, TODAY)).toEqual(failsOn('states'));
    expect(checkEligibility({ us_citizen: false }, { personal: LEAD.personal }, TODAY)).toEqual(failsOn('us_citizen'));
  });

  it('compares states case-insensitively', () => {
    expect(checkEligibility({ states: ['ca'] }, LEAD, TODAY)).toEqual(ELIGIBLE);
    expect(checkEligibility({ states: ['CA'] }, withField('address', 'state', 'ca'), TODAY)).toEqual(ELIGIBLE);
  });

  it('includes both age bounds: the birthday itself counts', () => {
    const rules = { min_age: 18, max_age: 18 };
    expect(checkEligibility(rules, withField('personal', 'date_of_birth', '2007-06-15'), TODAY)).toEqual(ELIGIBLE);
    expect(checkEligibility(rules, withField('personal', 'date_of_birth', '2006-06-16'), TODAY)).toEqual(ELIGIBLE);
    expect(checkEligibility(rules, withField('personal', 'date_of_birth', '2007-06-16'), TODAY)).toEqual(failsOn('min_age'));
    expect(checkEligibility(rules, withField('personal', 'date_of_birth', '2006-06-15'), TODAY)).toEqual(failsOn('max_age'));
  });

  it('includes both graduation-year bounds', () => {
    const rules = { min_hs_grad_year: 2010, max_hs_grad_year: 2010 };
    expect(checkEligibility(rules, withField('education', 'high_school_graduation_year', '2010'), TODAY)).toEqual(ELIGIBLE);
    expect(checkEligibility(rules, withField('education', 'high_school_graduation_year', '2009'), TODAY)).toEqual(
      failsOn('min_hs_grad_year'),
    );
    expect(checkEligibility(rules, withField('education', 'high_school_graduation_year', '2011'), TODAY)).toEqual(
      failsOn('max_hs_grad_year'),
    );
  });

  it('matches a ZIP+4 by its leading digits and accepts a full five-digit prefix', () => {
    expect(checkEligibility({ zip_prefixes: ['90210'] }, LEAD, TODAY)).toEqual(ELIGIBLE);
    expect(checkEligibility({ zip_prefixes: ['1'] }, LEAD, TODAY)).toEqual(failsOn('zip_prefixes'));
  });

  it('reports the first failing rule in the fixed order, whatever the key order of the rules object', () => {
    const lead: Lead = { address: { state: 'NY' }, background: { us_citizen: 'no' } };
    const rules: EligibilityRules = { zip_prefixes: ['90'], us_citizen: true, education_levels: ['ged'], states: ['CA'] };
    expect(checkEligibility(rules, lead, TODAY)).toEqual(failsOn('states'));
    const { states: _states, ...rest } = rules;
    expect(checkEligibility(rest, lead, TODAY)).toEqual(failsOn('education_levels'));
    expect(checkEligibility({ max_age: 20, min_age: 18 }, LEAD, TODAY)).toEqual(failsOn('max_age'));
    expect(checkEligibility({ max_age: 40, min_age: 40 }, LEAD, TODAY)).toEqual(failsOn('min_age'));
  });
});

describe('the facts a rule decided on', () => {
  it('names what the rule asks for and the lead value it was checked against', () => {
    expect(checkEligibility({ states: ['CA', 'TX'] }, withField('address', 'state', 'NV'), TODAY)).toEqual({
      eligible: false,
      rule: 'states',
      required: ['CA', 'TX'],
      actual: 'NV',
    });
    expect(checkEligibility({ min_age: 30 }, withField('personal', 'date_of_birth', '1995-06-16'), TODAY)).toEqual({
      eligible: false,
      rule: 'min_age',
      required: 30,
      actual: 29,
    });
    expect(checkEligibility({ max_hs_grad_year: 2013 }, withField('education', 'high_school_graduation_year', '2014'), TODAY)).toEqual({
      eligible: false,
      rule: 'max_hs_grad_year',
      required: 2013,
      actual: 2014,
    });
    expect(checkEligibility({ education_levels: ['ged'] }, withField('education', 'education_level', undefined), TODAY)).toEqual({
      eligible: false,
      rule: 'education_levels',
      required: ['ged'],
      actual: null,
    });
  });

  it('returns every program’s check with the offer’s outcome', () => {
    const programs = [
      { value: 'msn', eligibility: { education_levels: ['master'] } },
      { value: 'bsn', eligibility: {} },
    ];
    expect(qualifyOffer({}, programs, withField('education', 'education_level', 'associate'), TODAY)).toEqual({
      ok: true,
      programs: ['bsn'],
      programChecks: [
        { value: 'msn', check: { eligible: false, rule: 'education_levels', required: ['master'], actual: 'associate' } },
        { value: 'bsn', check: { eligible: true } },
      ],
    });
  });
});

describe('qualifyOffer', () => {
  const offerRules: EligibilityRules = { states: ['CA', 'TX'] };

  it('qualifies an offer without programs with an empty program list', () => {
    expect(qualifyOffer(offerRules, [], LEAD, TODAY)).toMatchObject({ ok: true, programs: [] });
  });

  it('refuses as not_eligible, naming the rule, when the offer rules fail (programs are not looked at)', () => {
    const programs = [{ value: 'bsn', eligibility: {} }];
    expect(qualifyOffer(offerRules, programs, withField('address', 'state', 'NY'), TODAY)).toEqual(refused('not_eligible', 'states'));
    expect(qualifyOffer(offerRules, [], withField('address', 'state', undefined), TODAY)).toEqual(refused('not_eligible', 'states'));
  });

  it('keeps the programs whose own rules hold, in the given order', () => {
    const programs = [
      { value: 'rn-bsn', eligibility: {} },
      { value: 'msn', eligibility: { education_levels: ['master'] } },
      { value: 'bsn', eligibility: { education_levels: ['associate', 'bachelor'] } },
    ];
    expect(qualifyOffer(offerRules, programs, LEAD, TODAY)).toMatchObject({ ok: true, programs: ['rn-bsn', 'bsn'] });
  });

  it('lets a program narrow its offer: the offer rules still hold for the program', () => {
    const programs = [{ value: 'tx-only', eligibility: { states: ['TX'] } }];
    expect(qualifyOffer(offerRules, programs, LEAD, TODAY)).toEqual(refused('no_eligible_program', 'programs.tx-only.states'));
    const texan = withField('address', 'state', 'TX');
    expect(qualifyOffer(offerRules, programs, texan, TODAY)).toMatchObject({ ok: true, programs: ['tx-only'] });
    // a program cannot widen: the offer's states still apply to a program that allows NY
    const widening = [{ value: 'ny', eligibility: { states: ['NY'] } }];
    expect(qualifyOffer(offerRules, widening, withField('address', 'state', 'NY'), TODAY)).toEqual(refused('not_eligible', 'states'));
  });

  it('refuses as no_eligible_program with the first program and its first failing rule', () => {
    const programs = [
      { value: 'msn', eligibility: { us_citizen: false, education_levels: ['master'] } },
      { value: 'dnp', eligibility: { education_levels: ['doctorate'] } },
    ];
    expect(qualifyOffer({}, programs, LEAD, TODAY)).toEqual(refused('no_eligible_program', 'programs.msn.education_levels'));
  });
});
