import type { OfferListMapping } from '@lr/domain';
import { exchangePartner } from '../../../../../test/support/exchange-partner';
import { PartnerProtocolError } from '../partner-errors';
import { MAX_ANSWER_DEPTH } from './answer-depth';
import { MAX_OFFER_ENTRIES, readOfferList } from './read-offer-list';

const SEARCH = 'search-1';
const ASKED = [
  { offerId: 'o-westlake', externalId: 'westlake-001' },
  { offerId: 'o-harbor', externalId: 'harbor-002' },
];
/** The exchange protocol's mapping (test/fixtures/exchange-partner.json): questions listed under each program. */
const EXCHANGE: OfferListMapping = (exchangePartner('p', 'x', 'http://x.example', 'K').search as { results: OfferListMapping }).results;
const NOW = Date.parse('2026-01-05T14:00:00Z');

const yesNo = [
  { Id: 'yes', Text: 'Yes' },
  { Id: 'no', Text: 'No' },
];
const grad = {
  Key: 'hs_grad_year',
  Prompt: 'High school graduation year',
  Kind: 'Dropdown',
  Mandatory: true,
  Choices: [{ Id: '2015', Text: '2015' }],
};
const employer = { Key: 'current_employer', Prompt: 'Current employer', Kind: 'FreeText', Mandatory: false };

/** One match as the exchange sends it. */
function match(code: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    CampaignCode: code,
    MatchToken: `mt_${code}`,
    Institution: { DisplayName: 'Westlake College', LogoUrl: 'https://cdn.example.org/w.png' },
    Disclosure: 'By clicking I agree that Westlake College may contact me.',
    ValidForMinutes: 15,
    Payout: { Amount: '38.50', Currency: 'USD' },
    Programs: [
      { Code: 'it', Title: 'BS in Information Technology', Questions: [grad, employer] },
      {
        Code: 'rn-bsn',
        Title: 'RN to BSN',
        Questions: [grad, employer, { Key: 'rn_license', Prompt: 'RN license?', Kind: 'Dropdown', Mandatory: true, Choices: yesNo }],
      },
    ],
    ...overrides,
  };
}
const answer = (matches: unknown[], extra: Record<string, unknown> = {}) => ({
  RequestId: SEARCH,
  Status: 'OK',
  Data: { Matches: matches },
  ...extra,
});
const read = (body: unknown, mapping = EXCHANGE) => readOfferList(body, mapping, SEARCH, ASKED, NOW);
const refusal = (body: unknown, mapping = EXCHANGE) => {
  try {
    read(body, mapping);
  } catch (e) {
    expect(e).toBeInstanceOf(PartnerProtocolError);
    return (e as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('readOfferList with a foreign mapping (the exchange protocol)', () => {
  it('reads programs, per-program questions, consent, school and expiry into our shape, and nothing else', () => {
    const { results, dropped } = read(answer([match('westlake-001')]));
    expect(dropped).toEqual([]);
    expect(results).toEqual([
      {
        offerId: 'o-westlake',
        externalId: 'westlake-001',
        partnerResultId: 'mt_westlake-001',
        programs: [
          { value: 'it', label: 'BS in Information Technology' },
          { value: 'rn-bsn', label: 'RN to BSN' },
        ],
        formFields: [
          // Required under every program: required. Under one program only: required_when it. Under none: optional.
          {
            name: 'hs_grad_year',
            label: 'High school graduation year',
            type: 'select',
            required: true,
            options: [{ value: '2015', label: '2015' }],
          },
          { name: 'current_employer', label: 'Current employer', type: 'text', required: false },
          {
            name: 'rn_license',
            label: 'RN license?',
            type: 'select',
            required: false,
            required_when: { program_ids: ['rn-bsn'] },
            options: [
              { value: 'yes', label: 'Yes' },
              { value: 'no', label: 'No' },
            ],
          },
        ],
        tcpaText: 'By clicking I agree that Westlake College may contact me.',
        school: { name: 'Westlake College', logoUrl: 'https://cdn.example.org/w.png' },
        expiresInSeconds: 900,
      },
    ]);
    expect(JSON.stringify(results)).not.toMatch(/38\.50|USD/);
  });

  it('makes a question required outright when the result has only the program that requires it', () => {
    const [r] = read(
      answer([
        match('westlake-001', {
          Programs: [
            { Code: 'rn-bsn', Title: 'RN to BSN', Questions: [{ Key: 'rn_license', Kind: 'Dropdown', Mandatory: true, Choices: yesNo }] },
          ],
        }),
      ]),
    ).results;
    expect(r.formFields).toEqual([
      {
        name: 'rn_license',
        label: null,
        type: 'select',
        required: true,
        options: [
          { value: 'yes', label: 'Yes' },
          { value: 'no', label: 'No' },
        ],
      },
    ]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'a question two programs ask differently',
      {
        Programs: [
          { Code: 'a', Title: 'A', Questions: [grad] },
          { Code: 'b', Title: 'B', Questions: [{ ...grad, Kind: 'FreeText', Choices: undefined }] },
        ],
      },
      'Data.Matches[0].Programs[1].Questions[0]',
    ],
    [
      'a type the mapping does not know',
      { Programs: [{ Code: 'a', Title: 'A', Questions: [{ ...employer, Kind: 'Date' }] }] },
      'Data.Matches[0].Programs[0].Questions[0].Kind',
    ],
    [
      'a question named as a submit field',
      { Programs: [{ Code: 'a', Title: 'A', Questions: [{ ...employer, Key: 'program_id' }] }] },
      'Data.Matches[0].Programs[0].Questions[0].Key',
    ],
    [
      'Mandatory not a boolean',
      { Programs: [{ Code: 'a', Title: 'A', Questions: [{ ...employer, Mandatory: 'Y' }] }] },
      'Data.Matches[0].Programs[0].Questions[0].Mandatory',
    ],
    [
      'a question repeated under one program',
      { Programs: [{ Code: 'a', Title: 'A', Questions: [employer, employer] }] },
      'Data.Matches[0].Programs[0].Questions[1].Key',
    ],
    [
      'a dropdown without choices',
      { Programs: [{ Code: 'a', Title: 'A', Questions: [{ ...grad, Choices: [] }] }] },
      'Data.Matches[0].Programs[0].Questions[0].Choices',
    ],
    ['a program code that is a number', { Programs: [{ Code: 101, Title: 'A' }] }, 'Data.Matches[0].Programs[0].Code'],
    ['minutes that are not a whole number', { ValidForMinutes: 7.5 }, 'Data.Matches[0].ValidForMinutes'],
    ['an institution that is not an object', { Institution: 'Westlake' }, 'Data.Matches[0].Institution'],
  ])('drops an entry with %s, naming the path, and keeps the others', (_, overrides, path) => {
    const { results, dropped } = read(answer([match('westlake-001', overrides), match('harbor-002')]));
    expect(results.map((r) => r.offerId)).toEqual(['o-harbor']);
    expect(dropped).toEqual([{ index: 0, reason: 'malformed', externalId: 'westlake-001', problem: expect.stringContaining(path) }]);
  });

  it('reads questions listed on the offer with their own required_when, and an expiry given as a time', () => {
    const mapping: OfferListMapping = {
      list: '$',
      external_id: 'code',
      partner_result_id: 'token',
      programs: { list: 'programs', value: 'id' },
      questions: { list: 'questions', name: 'key', required_when: 'only_for', options: { list: 'choices', value: 'id' } },
      expires_at: 'valid_until',
    };
    const entry = {
      code: 'westlake-001',
      token: 't-1',
      programs: [{ id: 'it' }, { id: 'mba' }],
      questions: [{ key: 'years', only_for: ['mba'], choices: [{ id: '0-2' }, { id: '3+' }] }, { key: 'note' }],
      valid_until: '2026-01-05T14:10:00Z',
    };
    expect(readOfferList([entry], mapping, SEARCH, ASKED, NOW).results[0]).toEqual({
      offerId: 'o-westlake',
      externalId: 'westlake-001',
      partnerResultId: 't-1',
      programs: [
        { value: 'it', label: 'it' },
        { value: 'mba', label: 'mba' },
      ],
      formFields: [
        {
          name: 'years',
          label: null,
          type: 'select',
          required: false,
          required_when: { program_ids: ['mba'] },
          options: [
            { value: '0-2', label: '0-2' },
            { value: '3+', label: '3+' },
          ],
        },
        { name: 'note', label: null, type: 'text', required: false },
      ],
      tcpaText: null,
      school: null,
      expiresInSeconds: 600,
    });
    const past = { ...entry, valid_until: '2026-01-05T13:59:59Z' };
    const [problem] = readOfferList([past, { ...entry, code: 'harbor-002' }], mapping, SEARCH, ASKED, NOW).dropped.map((d) => d.problem);
    expect(problem).toBe('$[0].valid_until is not in the future');
    expect(
      readOfferList(
        [
          { ...entry, valid_until: 'tomorrow' },
          { ...entry, code: 'harbor-002' },
        ],
        mapping,
        SEARCH,
        ASKED,
        NOW,
      ).dropped[0].problem,
    ).toBe('$[0].valid_until must be an ISO 8601 time or null');
  });
});

describe('readOfferList: answers that do not fit are refusals naming the path', () => {
  it.each<[string, unknown, string]>([
    ['no list where the mapping says', { RequestId: SEARCH, Data: { Offers: [] } }, 'the answer has no list of offers at Data.Matches'],
    [
      'a list that is an object',
      { RequestId: SEARCH, Data: { Matches: { 0: match('westlake-001') } } },
      'the answer has no list of offers at Data.Matches',
    ],
    [
      'an answer about another search',
      answer([match('westlake-001')], { RequestId: 'search-2' }),
      "the answer's RequestId names another search",
    ],
    ['an answer that is not JSON object', 'OK', 'the answer has no list of offers at Data.Matches'],
  ])('refuses %s', (_, body, message) => {
    expect(refusal(body)).toBe(message);
  });

  it('refuses an answer none of whose entries fits, naming the first problem', () => {
    expect(refusal(answer([match('westlake-001', { MatchToken: 42 }), match('harbor-002', { Programs: [] })]))).toBe(
      'no offer of the answer fits the mapping: Data.Matches[0].MatchToken must be a string of 1 to 200 characters',
    );
  });

  it('refuses an entry whose display text holds markup, naming the field, and keeps the others', () => {
    const program = (label: string) => ({ Code: 'it', Title: label, Questions: [grad] });
    const question = (prompt: string) => ({ Code: 'it', Title: 'IT', Questions: [{ ...grad, Prompt: prompt }] });
    const option = (text: string) => ({ Code: 'it', Title: 'IT', Questions: [{ ...grad, Choices: [{ Id: '2015', Text: text }] }] });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ Disclosure: '<script>alert(1)</script>I agree' }, 'tcpa_text'],
      [{ Institution: { DisplayName: 'Westlake <img src=x onerror=alert(1)>' } }, 'school_name'],
      [{ Programs: [program('<a href="javascript:alert(1)">IT</a>')] }, 'program_label'],
      [{ Programs: [{ Code: 'javascript:alert(1)', Title: 'IT' }] }, 'program_value'],
      [{ Programs: [question('Year" onfocus="steal()')] }, 'question_label'],
      [{ Programs: [{ Code: 'it', Title: 'IT', Questions: [{ ...grad, Key: '<b>year</b>' }] }] }, 'question_name'],
      [{ Programs: [option('&#60;svg&#62;2015')] }, 'option_label'],
    ];
    for (const [overrides, field] of cases) {
      const got = read(answer([match('westlake-001', overrides), match('harbor-002')]));
      expect(got.results.map((r) => r.offerId)).toEqual(['o-harbor']);
      expect(got.dropped).toEqual([
        {
          index: 0,
          reason: 'markup',
          externalId: 'westlake-001',
          field,
          problem: expect.stringMatching(/holds markup \((tag|script_url|event_handler)\)/),
        },
      ]);
      // The problem names the path, never the partner's text.
      expect(got.dropped[0].problem).not.toMatch(/alert|steal|svg|<b>/);
    }
    // An answer whose every entry holds markup is answered empty, not an error: the partner works, its text is refused.
    expect(read(answer([match('westlake-001', { Disclosure: '<p>I agree</p>' })])).results).toEqual([]);
  });

  it('answers no results, without a refusal, when the entries are only about offers not asked', () => {
    expect(read(answer([match('other-partner-offer-9')])).dropped).toEqual([
      { index: 0, reason: 'unknown_offer', externalId: 'other-partner-offer-9' },
    ]);
  });

  it(`bounds the answer: at most ${MAX_OFFER_ENTRIES} entries, nested at most ${MAX_ANSWER_DEPTH} levels`, () => {
    expect(refusal(answer(Array.from({ length: MAX_OFFER_ENTRIES + 1 }, () => null)))).toBe(
      `the answer's Data.Matches has more than ${MAX_OFFER_ENTRIES} entries`,
    );
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(refusal(answer([match('westlake-001', { Notes: deep })]))).toMatch(
      new RegExp(`^the answer is nested deeper than ${MAX_ANSWER_DEPTH} levels at Data\\.Matches\\[0\\]\\.Notes(\\[0\\])+$`),
    );
    expect(read(answer([match('westlake-001', { Notes: [[[['fine']]]] })])).results).toHaveLength(1);
  });
});
