import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateCatalog } from './validate-catalog';
import type { KnownCatalogRefs } from './catalog.types';

const ROOT = join(__dirname, '../../../..');
const fixture = (name: string) =>
  JSON.parse(readFileSync(name === 'demo-catalog.json' ? join(ROOT, 'demo/catalog.json') : join(ROOT, 'test/fixtures', name), 'utf8'));
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));
const messages = (input: unknown, known?: KnownCatalogRefs) => validateCatalog(input, known).issues.map((i) => `${i.path}: ${i.message}`);

describe('validateCatalog', () => {
  const example = fixture('catalog.example.json');

  it.each(['catalog.example.json', 'demo-catalog.json'])('accepts %s and fills defaults', (name) => {
    const { catalog, issues } = validateCatalog(fixture(name));
    expect(issues).toEqual([]);
    expect(catalog).not.toBeNull();
  });

  it('fills the defaults of optional keys', () => {
    const { catalog } = validateCatalog(example);
    const partnerOffer = catalog!.offers[1];
    expect(partnerOffer).toMatchObject({
      priority: 0,
      price: null,
      tcpa_text: null,
      duplicate_window_days: 30,
      eligibility: {},
      programs: [],
      form_fields: [],
      caps: [],
      delivery: null,
    });
    expect(catalog!.campaigns[0].offers[0].caps).toEqual([{ period: 'day', limit: 20, timezone: 'America/New_York' }]);
    expect(catalog!.campaigns[0].offers[1]).toEqual({ offer_id: example.offers[1].id, payout: null, program_payouts: null, caps: [] });
    expect(catalog!.schools[1].logo_url).toBeNull();
  });

  it('accepts an empty file and lower-cases ids', () => {
    expect(validateCatalog({})).toEqual({ catalog: { affiliates: [], schools: [], partners: [], offers: [], campaigns: [] }, issues: [] });
    const upper = { affiliates: [{ id: 'ABCDEF01-2345-4678-9ABC-DEF012345678', name: 'A', status: 'active' }] };
    expect(validateCatalog(upper).catalog!.affiliates[0].id).toBe('abcdef01-2345-4678-9abc-def012345678');
  });

  it('refuses a root that is not an object', () => {
    expect(messages([])).toEqual(['$: must be an object, got an array']);
    expect(messages({ offers: {} })).toEqual(['offers: must be an array, got an object']);
  });

  it('names unknown keys and missing required keys by path', () => {
    const c = clone(example);
    c.offers[0].programs[0].colour = 'red';
    delete c.affiliates[0].status;
    c.campaigns[0].offers[0].caps[0].every = 'day';
    expect(messages(c)).toEqual([
      expect.stringMatching(/^affiliates\[0\]\.status: is required$/),
      expect.stringMatching(/^offers\[0\]\.programs\[0\]\.colour: unknown key \(allowed: value, label, eligibility\)$/),
      expect.stringMatching(/^campaigns\[0\]\.offers\[0\]\.caps\[0\]\.every: unknown key/),
    ]);
  });

  it('checks types, ranges and money', () => {
    const c = clone(example);
    c.affiliates[0].dupe_check = 'yes';
    c.offers[0].price = 10.005;
    c.offers[0].result_ttl_seconds = 0;
    c.offers[0].priority = 1.5;
    c.campaigns[0].offers[0].payout = -1;
    c.partners[0].base_url = 'ftp://example.org';
    expect(messages(c)).toEqual([
      'affiliates[0].dupe_check: must be a boolean, got the string "yes"',
      'partners[0].base_url: must be an http(s) URL, got the string "ftp://example.org"',
      'offers[0].priority: must be an integer, got number 1.5',
      'offers[0].price: must have at most 2 decimals, got 10.005',
      'offers[0].result_ttl_seconds: must be between 1 and 86400, got 0',
      'campaigns[0].offers[0].payout: must not be negative, got -1',
    ]);
  });

  it('checks enums', () => {
    const c = clone(example);
    c.offers[0].offer_type = 'exclusive-ish';
    c.offers[0].status = 'ACTIVE';
    c.offers[0].form_fields[0].type = 'radio';
    expect(messages(c)).toEqual([
      'offers[0].offer_type: must be one of shared, exclusive, true_exclusive; got "exclusive-ish"',
      'offers[0].status: must be one of active, paused; got "ACTIVE"',
      'offers[0].form_fields[0].type: must be one of select, text, number; got "radio"',
    ]);
  });

  it('checks eligibility keys, vocabularies and ranges', () => {
    const c = clone(example);
    const e = c.offers[0].eligibility;
    e.states = ['CA', 'ca', 'CA'];
    e.min_age = 70;
    e.learning_preferences = [];
    e.zip_prefixes = ['9a'];
    e.income = 5;
    c.offers[0].programs[0].eligibility.military_affiliations = ['marine'];
    expect(messages(c)).toEqual([
      'offers[0].programs[0].eligibility.military_affiliations[0]: must be a military affiliation, one of none, active_duty, veteran, reserve, national_guard, spouse, dependent; got "marine"',
      expect.stringMatching(/^offers\[0\]\.eligibility\.income: unknown key \(allowed: states, min_age/),
      expect.stringMatching(/^offers\[0\]\.eligibility\.states\[1\]: must be a USPS state code, one of AL, .*; got "ca"$/),
      'offers[0].eligibility.states[2]: duplicate value "CA" (also at offers[0].eligibility.states[0])',
      'offers[0].eligibility.learning_preferences: must not be empty',
      'offers[0].eligibility.min_age: must not be greater than max_age (70 > 65)',
      'offers[0].eligibility.zip_prefixes[0]: must be 1 to 5 digits, got "9a"',
    ]);
  });

  it('keeps partner offers free of what the partner supplies, and own offers complete', () => {
    const c = clone(example);
    c.offers[1].programs = [];
    c.offers[1].delivery = c.offers[0].delivery;
    delete c.offers[1].external_id;
    delete c.offers[0].price;
    c.offers[0].partner_id = c.partners[0].id;
    expect(messages(c)).toEqual([
      'offers[0].partner_id: only a partner offer has a partner_id',
      'offers[0].price: is required on an own offer',
      'offers[1].delivery: not allowed on a partner offer (the partner supplies it in its answer)',
      'offers[1].programs: not allowed on a partner offer (the partner supplies it in its answer)',
      "offers[1].external_id: is required on a partner offer (the partner's id of the offer)",
    ]);
  });

  it('checks questions: names, options, required_when', () => {
    const c = clone(example);
    const [q0, q1] = c.offers[0].form_fields;
    q0.name = 'tcpa_consent';
    q1.required_when.program_ids = ['rn-bsn', 'msn'];
    c.offers[0].form_fields.push({ name: 'notes', type: 'text', required: false, options: [{ value: 'a', label: 'A' }] });
    c.offers[0].form_fields.push({ name: 'Bad Name', type: 'select', required: true, options: [] });
    c.offers[0].form_fields.push({ ...q1, required_when: undefined });
    expect(messages(c)).toEqual([
      'offers[0].form_fields[0].name: "tcpa_consent" is a field of the submit request and cannot name a question',
      'offers[0].form_fields[1].required_when.program_ids[1]: unknown program "msn": not among this offer\'s programs (bsn, rn-bsn)',
      'offers[0].form_fields[2].options: only a select question has options',
      'offers[0].form_fields[3].name: must be lower-case letters, digits and _ starting with a letter (at most 64), got "Bad Name"',
      'offers[0].form_fields[3].options: must not be empty',
      'offers[0].form_fields[4].name: duplicate question name "rn_license" (also offers[0].form_fields[1].name)',
    ]);
  });

  it('checks caps: period, unique per scope, time zone', () => {
    const c = clone(example);
    c.offers[0].caps = [
      { period: 'day', limit: 1 },
      { period: 'day', limit: 2, timezone: 'Europe/Paris' },
      { period: 'fortnight', limit: 3 },
      { period: 'week', limit: 4, timezone: 'Nowhere/Land' },
    ];
    c.campaigns[0].offers[0].caps.push({ period: 'day', limit: 5 });
    expect(messages(c)).toEqual([
      'offers[0].caps[1].period: duplicate cap period "day" for the same scope (also offers[0].caps[0].period)',
      'offers[0].caps[2].period: must be one of hour, day, week, month, total; got "fortnight"',
      'offers[0].caps[3].timezone: must be an IANA time zone such as America/New_York, got the string "Nowhere/Land"',
      'campaigns[0].offers[0].caps[1].period: duplicate cap period "day" for the same scope (also campaigns[0].offers[0].caps[0].period)',
    ]);
  });

  it('checks references against the file and the database, and duplicate ids', () => {
    const c = clone(example);
    const schoolId = c.schools[1].id;
    c.schools = [c.schools[0], c.schools[0]];
    c.campaigns[0].offers[0].program_payouts = { bsn: 30, msn: 40 };
    c.campaigns[0].offers.push({ offer_id: '11111111-2222-4333-8444-555555555555' });
    expect(messages(c)).toEqual([
      `schools[1].id: duplicate id ${c.schools[0].id} in schools (also schools[0])`,
      `offers[1].school_id: unknown school ${schoolId}: not in this file's schools nor in the database`,
      `campaigns[0].offers[0].program_payouts.msn: unknown program "msn" of offer ${c.offers[0].id} (programs: bsn, rn-bsn)`,
      `campaigns[0].offers[2].offer_id: unknown offer 11111111-2222-4333-8444-555555555555: not in this file's offers nor in the database`,
    ]);

    const known: KnownCatalogRefs = {
      affiliateIds: new Set(),
      schoolIds: new Set([schoolId]),
      partnerIds: new Set(),
      offers: new Map([['11111111-2222-4333-8444-555555555555', { source: 'own', partnerId: null, externalId: null, programValues: ['x'] }]]),
    };
    c.schools = [c.schools[0]];
    c.campaigns[0].offers[0].program_payouts = { bsn: 30 };
    c.campaigns[0].offers[2].program_payouts = { x: 1, y: 2 };
    expect(messages(c, known)).toEqual([
      'campaigns[0].offers[2].program_payouts.y: unknown program "y" of offer 11111111-2222-4333-8444-555555555555 (programs: x)',
    ]);
  });

  it('refuses a second partner offer with the same external_id', () => {
    const c = clone(example);
    c.offers.push({ ...c.offers[1], id: '11111111-2222-4333-8444-555555555555' });
    expect(messages(c)).toEqual([
      expect.stringMatching(/^offers\[2\]\.external_id: partner .* already has an offer with external_id "westlake-001" \(offers\[1\]\)$/),
    ]);
    const known: KnownCatalogRefs = {
      affiliateIds: new Set(),
      schoolIds: new Set(),
      partnerIds: new Set(),
      offers: new Map([['11111111-2222-4333-8444-555555555555', { source: 'partner', partnerId: example.partners[0].id, externalId: 'westlake-001', programValues: [] }]]),
    };
    expect(messages(example, known)).toEqual([
      expect.stringMatching(/^offers\[1\]\.external_id: partner .* already has offer 11111111-2222-4333-8444-555555555555 with external_id "westlake-001" in the database$/),
    ]);
  });
});
