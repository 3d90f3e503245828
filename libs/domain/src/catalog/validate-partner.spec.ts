import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SEARCH_FIELDS } from '../partners/search-view';
import { validateCatalog } from './validate-catalog';

const ROOT = join(__dirname, '../../../..');
/** The worked example of docs/runbooks/add-partner.md: a json partner for the sandbox's exchange protocol. */
const exchange = (): Record<string, any> => JSON.parse(readFileSync(join(ROOT, 'test/fixtures/exchange-partner.json'), 'utf8')); // eslint-disable-line @typescript-eslint/no-explicit-any -- a fixture's JSON the tests edit by any path, wrong types included.
const messages = (partner: unknown) => validateCatalog({ partners: [partner] }).issues.map((i) => `${i.path}: ${i.message}`);
const sandbox = {
  id: '0b8f6a52-3c1d-4e2f-8a9b-7c6d5e4f3a2b',
  name: 'Alpha',
  adapter: 'sandbox',
  base_url: 'http://127.0.0.1:4100/partners/alpha',
};

describe('validateCatalog: partners', () => {
  it('accepts the json partner of the worked example and stores its settings as given', () => {
    const entry = exchange();
    const { catalog, issues } = validateCatalog({ partners: [entry] });
    expect(issues).toEqual([]);
    const { id, name, adapter, base_url, timeout_ms, ...settings } = entry;
    expect(catalog!.partners[0]).toEqual({ id, name, adapter, base_url, timeout_ms, settings });
  });

  it('stores no settings for a sandbox partner without headers, and its headers when it has some', () => {
    expect(validateCatalog({ partners: [sandbox] }).catalog!.partners[0]).toEqual({ ...sandbox, timeout_ms: 10000, settings: null });
    const withKey = { ...sandbox, headers: { 'X-Key': '${env:ALPHA_KEY}' } };
    expect(validateCatalog({ partners: [withKey] }).catalog!.partners[0].settings).toEqual({ headers: { 'X-Key': '${env:ALPHA_KEY}' } });
  });

  it('names the adapter, a json partner without search, and json keys on a sandbox partner', () => {
    expect(messages({ ...sandbox, adapter: 'soap' })).toEqual(['partners[0].adapter: must be one of sandbox, json; got "soap"']);
    const { search: _search, ...noSearch } = exchange();
    expect(messages(noSearch)).toEqual(['partners[0].search: is required on a json partner (the search call and how its answer is read)']);
    expect(messages({ ...sandbox, search: exchange().search, submit: {} })).toEqual([
      'partners[0].search: only the json adapter reads it (the sandbox partner protocol is fixed)',
      'partners[0].submit: only the json adapter reads it (the sandbox partner protocol is fixed)',
    ]);
    expect(messages({ ...sandbox, price: 40 })).toEqual([
      expect.stringMatching(
        /^partners\[0\]\.price: unknown key \(allowed: id, name, adapter, base_url, timeout_ms, headers, search_fields, search, submit\)$/,
      ),
    ]);
  });

  it('checks headers as for a school delivery: names, references, what the adapter sets', () => {
    expect(messages({ ...exchange(), headers: { 'X-Api-Key': 'Bearer ${CAMPUS_KEY}', 'Idempotency-Key': 'x' } })).toEqual([
      'partners[0].headers.X-Api-Key: has a "${" that is not an environment reference ${env:NAME} (NAME: letters, digits and _)',
      'partners[0].headers.Idempotency-Key: is set by the adapter and cannot be configured',
    ]);
  });

  it('checks the call paths and the field maps against the search and submit documents', () => {
    const e = exchange();
    e.search.path = '/v2/match';
    e.submit.path = 'v2/../admin';
    e.search.field_map = {
      RequestId: 'search_id',
      Answers: 'answers',
      Email: 'lead.personal.mail',
      Code: 'external_ids.0',
      Fixed: '=lead-router',
    };
    e.submit.field_map = { Ref: 'lead_id', Offer: 'offer.id', Grad: 'answers.GraduationYear', Result: 'partner_result_id' };
    expect(messages(e)).toEqual([
      'partners[0].search.path: must be a path relative to base_url, such as "v2/search" (letters, digits, ._~- and /; no leading /, no query)',
      'partners[0].search.field_map.Answers: invalid source "answers": the search document has no field "answers" (fields: search_id, external_ids, offers, lead, tracking, is_test) (a literal is written =text)',
      'partners[0].search.field_map.Email: invalid source "lead.personal.mail": lead.personal has no field "mail" (fields: first_name, last_name, email, phone, date_of_birth, age_band, birth_year) (a literal is written =text)',
      'partners[0].search.field_map.Code: invalid source "external_ids.0": external_ids is a value and has no fields (a literal is written =text)',
      'partners[0].submit.path: must be a path relative to base_url, such as "v2/search" (letters, digits, ._~- and /; no leading /, no query)',
      'partners[0].submit.field_map.Offer: invalid source "offer.id": the submit document has no field "offer" (fields: lead_id, search_id, partner_result_id, external_id, lead, tracking, consumer_ip, program_id, answers, consent, submitted_at) (a literal is written =text)',
    ]);
    expect(messages({ ...exchange(), search: { ...exchange().search, field_map: {} } })).toEqual([
      'partners[0].search.field_map: must not be empty (leave field_map out to send the default search document)',
    ]);
  });

  it('checks how the answer is read: required paths, no unknown keys (no price to map), one expiry', () => {
    const e = exchange();
    delete e.search.results.external_id;
    e.search.results.list = 'Data..Matches';
    e.search.results.price = 'Payout.Amount';
    e.search.results.programs = { list: 'Programs', label: 7 };
    e.search.results.school = { path: 'Institution' };
    e.search.results.expires_in = { path: 'ValidForMinutes', unit: 'days' };
    e.search.results.expires_at = 'ExpiresAt';
    expect(messages(e)).toEqual([
      'partners[0].search.results.price: unknown key (allowed: list, search_id, external_id, partner_result_id, programs, questions, tcpa_text, school, expires_in, expires_at)',
      'partners[0].search.results.external_id: is required',
      'partners[0].search.results.list: must be a dotted path of non-empty parts of at most 100 characters, got "Data..Matches"',
      'partners[0].search.results.programs.value: is required',
      'partners[0].search.results.programs.label: must be a string, got number 7',
      'partners[0].search.results.school.name: is required',
      'partners[0].search.results.expires_in.unit: must be one of seconds, minutes, hours; got "days"',
      'partners[0].search.results.expires_at: give expires_in or expires_at, not both',
    ]);
    const root = exchange();
    root.search.results.list = '$';
    expect(messages(root)).toEqual([]);
  });

  it('checks the questions mapping: place, types, required_when only on the offer', () => {
    const e = exchange();
    e.search.results.questions = {
      ...e.search.results.questions,
      under: 'school',
      required_when: 'RequiredFor',
      types: { Dropdown: 'select', Date: 'date' },
    };
    expect(messages(e)).toEqual([
      'partners[0].search.results.questions.under: must be one of offer, program; got "school"',
      'partners[0].search.results.questions.types.Date: must be one of select, text, number; got "date"',
    ]);
    e.search.results.questions.under = 'program';
    e.search.results.questions.types = { Dropdown: 'select' };
    delete e.search.results.questions.type;
    expect(messages(e)).toEqual([
      'partners[0].search.results.questions.required_when: only questions under the offer have one (under a program, `required` says for which programs)',
      'partners[0].search.results.questions.types: needs type (the path of the value it translates)',
    ]);
    expect(
      messages({
        ...exchange(),
        search: { ...exchange().search, results: { ...exchange().search.results, questions: { list: 'Questions' } } },
      }),
    ).toEqual(['partners[0].search.results.questions.name: is required']);
  });

  it('refuses a literal value in a credential header and accepts an environment reference', () => {
    expect(messages({ ...sandbox, headers: { 'X-Api-Key': 'sandbox-key-alpha' } })).toEqual([
      'partners[0].headers.X-Api-Key: carries a credential and must be an environment reference ${env:NAME}, never a literal value: put the value in the environment of the app that calls',
    ]);
    expect(messages({ ...sandbox, headers: { 'X-Auth-Token': 'tok-${env:ALPHA}' } })).toHaveLength(1);
    expect(messages({ ...sandbox, headers: { 'X-Api-Key': '${env:ALPHA_KEY}', 'X-Tenant': 'acme' } })).toEqual([]);
  });

  it('reads search_fields: names of the search document, each once; absent, the default is not stored', () => {
    const fields = ['lead.address.state', 'lead.hashed.email', 'lead.personal.email'];
    expect(validateCatalog({ partners: [{ ...sandbox, search_fields: fields }] }).catalog!.partners[0].settings).toEqual({
      search_fields: fields,
    });
    expect(validateCatalog({ partners: [{ ...sandbox, search_fields: [] }] }).catalog!.partners[0].settings).toEqual({ search_fields: [] });
    expect(messages({ ...sandbox, search_fields: ['lead.personal.ssn', 'lead.address.state', 'lead.address.state'] })).toEqual([
      expect.stringMatching(/^partners\[0\]\.search_fields\[0\]: must be one of lead\.personal\.first_name, /),
      'partners[0].search_fields[2]: repeats lead.address.state',
    ]);
    expect(messages({ ...sandbox, search_fields: 'lead.personal.email' })).toEqual([
      expect.stringMatching(/^partners\[0\]\.search_fields: must be an array/),
    ]);
  });

  it('refuses a search field_map source the partner is never sent, and takes it once search_fields names it', () => {
    const e = exchange();
    e.search.field_map['Applicant.Email'] = 'lead.personal.email';
    e.search.field_map['Source.Ip'] = 'tracking.ip_address';
    expect(messages(e)).toEqual([
      `partners[0].search.field_map["Applicant.Email"]: lead.personal.email is not among the partner's search_fields (${DEFAULT_SEARCH_FIELDS.join(', ')}): it is never sent at search`,
      `partners[0].search.field_map["Source.Ip"]: tracking.ip_address is not among the partner's search_fields (${DEFAULT_SEARCH_FIELDS.join(', ')}): it is never sent at search`,
    ]);
    expect(messages({ ...e, search_fields: [...DEFAULT_SEARCH_FIELDS, 'lead.personal.email', 'tracking.ip_address'] })).toEqual([]);
    // A whole group is the partner's view of it, whatever that holds.
    e.search.field_map = { ...exchange().search.field_map, Person: 'lead.personal' };
    expect(messages(e)).toEqual([]);
  });

  it("checks the submit response rules as a school delivery's", () => {
    const e = exchange();
    e.submit.response_rules = { duplicate: { http_status: [503] }, reason_path: 'Reason' };
    expect(messages(e)).toEqual([
      'partners[0].submit.response_rules.accepted: is required',
      'partners[0].submit.response_rules.duplicate.http_status[0]: must be between 200 and 499, got 503',
    ]);
  });
});
