import { PartnerProtocolError } from '../partner-errors';
import { parseSearchAnswer } from './search-answer';

const SEARCH = 'search-1';
const ASKED = [
  { offerId: 'o-westlake', externalId: 'westlake-001' },
  { offerId: 'o-harbor', externalId: 'harbor-002' },
  { offerId: 'o-summit', externalId: 'summit-003' },
];

/** A well-formed entry as the sandbox sends it. */
function entry(externalId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    external_id: externalId,
    partner_result_id: `pr_${externalId}`,
    programs: [
      { value: 'it', label: 'BS in Information Technology' },
      { value: 'rn-bsn', label: 'RN to BSN' },
    ],
    form_fields: [
      {
        name: 'hs_grad_year',
        label: 'High school graduation year',
        type: 'select',
        required: true,
        options: [{ value: '2026', label: '2026' }],
      },
      {
        name: 'rn_license',
        label: 'RN license?',
        type: 'select',
        required: false,
        required_when: { program_ids: ['rn-bsn'] },
        options: [{ value: 'yes', label: 'Yes' }],
      },
      { name: 'current_employer', label: null, type: 'text', required: false },
      { name: 'years', label: 'Years', type: 'number', required: false },
    ],
    tcpa_text: 'By clicking I agree',
    school: { name: 'Westlake College', logo_url: 'https://cdn.example.org/w.png' },
    expires_in_seconds: 900,
    ...overrides,
  };
}

const parse = (results: unknown[], extra: Record<string, unknown> = {}) =>
  parseSearchAnswer({ search_id: SEARCH, results, ...extra }, SEARCH, ASKED);

describe('parseSearchAnswer', () => {
  it('maps a good answer back to our offer ids, in the contract shape', () => {
    const answer = parse([entry('westlake-001'), entry('harbor-002', { tcpa_text: null, school: null, expires_in_seconds: null })]);
    expect(answer.dropped).toEqual([]);
    expect(answer.results).toEqual([
      {
        offerId: 'o-westlake',
        externalId: 'westlake-001',
        partnerResultId: 'pr_westlake-001',
        programs: [
          { value: 'it', label: 'BS in Information Technology' },
          { value: 'rn-bsn', label: 'RN to BSN' },
        ],
        formFields: [
          {
            name: 'hs_grad_year',
            label: 'High school graduation year',
            type: 'select',
            required: true,
            options: [{ value: '2026', label: '2026' }],
          },
          {
            name: 'rn_license',
            label: 'RN license?',
            type: 'select',
            required: false,
            required_when: { program_ids: ['rn-bsn'] },
            options: [{ value: 'yes', label: 'Yes' }],
          },
          { name: 'current_employer', label: null, type: 'text', required: false },
          { name: 'years', label: 'Years', type: 'number', required: false },
        ],
        tcpaText: 'By clicking I agree',
        school: { name: 'Westlake College', logoUrl: 'https://cdn.example.org/w.png' },
        expiresInSeconds: 900,
      },
      expect.objectContaining({ offerId: 'o-harbor', tcpaText: null, school: null, expiresInSeconds: null }),
    ]);
    // Absent keys stay absent (not undefined-valued) so the entry serializes as the contract says.
    expect(Object.keys(answer.results[0].formFields[2])).toEqual(['name', 'label', 'type', 'required']);
  });

  it('treats missing optional values as null and a missing logo as null', () => {
    const { tcpa_text: _t, expires_in_seconds: _e, ...rest } = entry('westlake-001', { school: { name: 'Westlake College' } });
    const answer = parse([rest]);
    expect(answer.results[0]).toMatchObject({
      tcpaText: null,
      expiresInSeconds: null,
      school: { name: 'Westlake College', logoUrl: null },
    });
  });

  it('keeps text with emoji and other characters beyond the basic plane', () => {
    expect(parse([entry('westlake-001', { tcpa_text: 'Yes 👍 I agree' })]).results[0].tcpaText).toBe('Yes 👍 I agree');
  });

  it('accepts an empty results list', () => {
    expect(parse([])).toEqual({ results: [], dropped: [] });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no partner_result_id', { partner_result_id: undefined }, 'partner_result_id'],
    ['an empty partner_result_id', { partner_result_id: '' }, 'partner_result_id'],
    ['a partner_result_id over 200 characters', { partner_result_id: 'x'.repeat(201) }, 'partner_result_id'],
    ['no programs', { programs: [] }, 'programs'],
    ['more than 50 programs', { programs: Array.from({ length: 51 }, (_, i) => ({ value: `p${i}`, label: 'P' })) }, 'programs'],
    ['a program without a label', { programs: [{ value: 'it' }] }, 'programs[0].label'],
    [
      'a program value that repeats',
      {
        programs: [
          { value: 'it', label: 'A' },
          { value: 'it', label: 'B' },
        ],
      },
      'programs[1].value',
    ],
    ['form_fields not an array', { form_fields: {} }, 'form_fields'],
    [
      'more than 50 form fields',
      { form_fields: Array.from({ length: 51 }, (_, i) => ({ name: `f${i}`, label: null, type: 'text', required: false })) },
      'form_fields',
    ],
    ['a field of an unknown type', { form_fields: [{ name: 'a', label: 'A', type: 'date', required: true }] }, 'form_fields[0].type'],
    ['a field without required', { form_fields: [{ name: 'a', label: 'A', type: 'text' }] }, 'form_fields[0].required'],
    ['a select without options', { form_fields: [{ name: 'a', label: 'A', type: 'select', required: true }] }, 'form_fields[0].options'],
    [
      'a select with an empty options list',
      { form_fields: [{ name: 'a', label: 'A', type: 'select', required: true, options: [] }] },
      'form_fields[0].options',
    ],
    [
      'a required_when naming no program',
      { form_fields: [{ name: 'a', label: 'A', type: 'text', required: false, required_when: { program_ids: 'it' } }] },
      'required_when.program_ids',
    ],
    [
      'a required_when naming a program not offered',
      { form_fields: [{ name: 'a', label: 'A', type: 'text', required: false, required_when: { program_ids: ['mba'] } }] },
      'program_ids[0]',
    ],
    [
      'a field name that repeats',
      {
        form_fields: [
          { name: 'a', label: 'A', type: 'text', required: false },
          { name: 'a', label: 'B', type: 'text', required: false },
        ],
      },
      'form_fields[1].name',
    ],
    ['tcpa_text not a string', { tcpa_text: 42 }, 'tcpa_text'],
    ['a NUL character in a text', { tcpa_text: 'I agree\u0000' }, 'tcpa_text'],
    ['an unpaired surrogate in a label', { programs: [{ value: 'it', label: 'IT \ud83d' }] }, 'programs[0].label'],
    ['a school without a name', { school: { logo_url: null } }, 'school.name'],
    ['a logo that is not an http(s) URL', { school: { name: 'W', logo_url: 'javascript:alert(1)' } }, 'school.logo_url'],
    ['expires_in_seconds of 0', { expires_in_seconds: 0 }, 'expires_in_seconds'],
    ['expires_in_seconds not an integer', { expires_in_seconds: 1.5 }, 'expires_in_seconds'],
    ['expires_in_seconds as a string', { expires_in_seconds: '900' }, 'expires_in_seconds'],
  ])('drops an entry with %s and keeps the others', (_, overrides, path) => {
    const answer = parse([entry('westlake-001', overrides), entry('harbor-002')]);
    expect(answer.results.map((r) => r.offerId)).toEqual(['o-harbor']);
    expect(answer.dropped).toEqual([{ index: 0, reason: 'malformed', externalId: 'westlake-001', problem: expect.stringContaining(path) }]);
  });

  it('drops entries that are not objects or have no usable external_id', () => {
    const answer = parse([null, 'westlake-001', entry('westlake-001', { external_id: 7 }), entry('summit-003')]);
    expect(answer.results.map((r) => r.offerId)).toEqual(['o-summit']);
    expect(answer.dropped).toEqual([
      { index: 0, reason: 'malformed', externalId: null, problem: 'results[0] must be an object' },
      { index: 1, reason: 'malformed', externalId: null, problem: 'results[1] must be an object' },
      { index: 2, reason: 'malformed', externalId: null, problem: expect.stringContaining('results[2].external_id') },
    ]);
  });

  it('drops results about offers we did not ask about', () => {
    const answer = parse([entry('not-asked-9'), entry('harbor-002')]);
    expect(answer.results.map((r) => r.offerId)).toEqual(['o-harbor']);
    expect(answer.dropped).toEqual([{ index: 0, reason: 'unknown_offer', externalId: 'not-asked-9' }]);
  });

  it('keeps the first entry for an external_id and drops repeats, even when the first was malformed', () => {
    const answer = parse([
      entry('westlake-001', { partner_result_id: 'first' }),
      entry('westlake-001', { partner_result_id: 'second' }),
      entry('harbor-002', { programs: [] }),
      entry('harbor-002'),
    ]);
    expect(answer.results.map((r) => r.partnerResultId)).toEqual(['first']);
    expect(answer.dropped.map((d) => [d.index, d.reason])).toEqual([
      [1, 'duplicate'],
      [2, 'malformed'],
      [3, 'duplicate'],
    ]);
  });

  it('maps an external_id we asked about twice to the first of our offers', () => {
    const asked = [...ASKED, { offerId: 'o-westlake-2', externalId: 'westlake-001' }];
    expect(parseSearchAnswer({ results: [entry('westlake-001')] }, SEARCH, asked).results[0].offerId).toBe('o-westlake');
  });

  it.each<[string, unknown]>([
    ['not an object', [entry('westlake-001')]],
    ['null', null],
    ['without results', { search_id: SEARCH }],
    ['with results not an array', { search_id: SEARCH, results: { 0: entry('westlake-001') } }],
    ['about another search', { search_id: 'search-2', results: [] }],
  ])('refuses an answer %s as a protocol error', (_, body) => {
    expect(() => parseSearchAnswer(body, SEARCH, ASKED)).toThrow(PartnerProtocolError);
  });
});
