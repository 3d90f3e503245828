import fc from 'fast-check';
import { Logger } from '@nestjs/common';
import type { PartnerOfferResult, PartnerRef } from '@lr/contracts';
import { validateCatalog, type OfferListMapping } from '@lr/domain';
import { exchangePartner } from '../../../../../test/support/exchange-partner';
import { text, unstorableText } from '../../../../../test/support/hostile-arbitraries';
import { httpStub } from '../../../../../test/support/school-delivery';
import { describeCallFailure } from '../../calls/call-failure';
import { readOfferList } from '../offer-list/read-offer-list';
import type { PartnerSubmitCall } from '../partner-adapter';
import { PartnerConfigError, PartnerHttpError, PartnerProtocolError } from '../partner-errors';
import { JsonPartnerAdapter } from './json-partner.adapter';

const ASKED = [
  { offerId: 'o-westlake', externalId: 'westlake-001' },
  { offerId: 'o-harbor', externalId: 'harbor-002' },
];
const ENV = { EXCHANGE_KEY: 'k-123' };

/** The worked example's partner as `catalog apply` validates and stores it, as a search request carries it. */
function exchangeRef(overrides: Partial<PartnerRef> = {}): PartnerRef {
  const entry = exchangePartner(
    '3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
    'Exchange',
    'https://api.exchange.example/v2/?tenant=lr',
    'EXCHANGE_KEY',
  );
  const p = validateCatalog({ partners: [entry] }).catalog!.partners[0];
  return {
    id: p.id,
    name: p.name,
    adapter: p.adapter,
    baseUrl: p.base_url,
    timeoutMs: p.timeout_ms,
    settings: p.settings as Record<string, unknown>,
    ...overrides,
  };
}
const MAPPING = (exchangeRef().settings as { search: { results: OfferListMapping } }).search.results;
const lead = { personal: { first_name: 'Ada', email: 'ada@example.com' }, address: { zip_code: '90210' } };
/** What the orchestrator sends a partner of the default search fields: no contact data, the hashed email. */
const view = { address: { zip_code: '90210' }, personal: { age_band: '25-34' }, hashed: { email: 'e'.repeat(64) } };
const searchCall = { searchId: 's-1', offers: ASKED, lead: view, tracking: { subid: 'x' }, isTest: false };
const submitCall: PartnerSubmitCall = {
  searchId: 's-1',
  partnerResultId: 'mt_1',
  externalId: 'westlake-001',
  lead,
  programId: 'it',
  answers: { hs_grad_year: '2015' },
  idempotencyKey: 'lead-1',
  tracking: { subid: 'x' },
  consumerIp: '203.0.113.9',
  consent: {
    tcpaConsent: true,
    tcpaText: 'Westlake may contact me',
    buttonLabel: 'Request Info',
    consentedAt: '2026-09-22T08:00:00.000Z',
    ip: '203.0.113.9',
    formCertUrl: null,
    universalLeadCert: null,
  },
  submittedAt: '2026-09-22T08:00:01.000Z',
};

describe('JsonPartnerAdapter', () => {
  const http = httpStub();
  beforeEach(http.install);
  afterEach(http.restore);
  const adapter = new JsonPartnerAdapter(ENV);
  const search = (partner = exchangeRef()) => adapter.search(partner, searchCall, new AbortController().signal);
  const submit = (partner = exchangeRef()) => adapter.submit(partner, submitCall, new AbortController().signal);
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e,
    );

  it('POSTs the mapped search to base_url + search.path, keeping its query, with the API key from the environment', async () => {
    http.json(JSON.stringify({ RequestId: 's-1', Data: { Matches: [] } }));
    await expect(search()).resolves.toEqual([]);
    expect(http.sent()).toMatchObject({
      url: 'https://api.exchange.example/v2/v2/match?tenant=lr',
      body: {
        RequestId: 's-1',
        Campaigns: ['westlake-001', 'harbor-002'],
        Applicant: { PostalCode: '90210', AgeBand: '25-34', EmailSha256: 'e'.repeat(64) },
        Source: { SubId: 'x' },
        TestMode: false,
      },
      headers: expect.objectContaining({ 'x-api-key': 'k-123', 'content-type': 'application/json' }),
    });
  });

  it("sends the search document and reads the sandbox protocol's answer shape only as configured", async () => {
    const partner = exchangeRef({ settings: { search: { results: MAPPING } } });
    http.json(JSON.stringify({ RequestId: 's-1', Data: { Matches: [] } }));
    await search(partner);
    expect(http.sent()).toMatchObject({
      url: 'https://api.exchange.example/v2/search?tenant=lr',
      body: {
        search_id: 's-1',
        external_ids: ['westlake-001', 'harbor-002'],
        offers: [{ external_id: 'westlake-001' }, { external_id: 'harbor-002' }],
        lead: view,
        tracking: { subid: 'x' },
        is_test: false,
      },
    });
  });

  it('sends nothing for settings it cannot use, and says which', async () => {
    await expect(failure(search(exchangeRef({ settings: null })))).resolves.toEqual(
      new PartnerConfigError('a json partner needs search.results (how its answer is read)'),
    );
    await expect(failure(new JsonPartnerAdapter({}).search(exchangeRef(), searchCall, new AbortController().signal))).resolves.toEqual(
      new PartnerConfigError('header X-Api-Key: environment variable EXCHANGE_KEY is not set'),
    );
    const clash = exchangeRef({ settings: { search: { field_map: { a: 'search_id', 'a.b': 'search_id' }, results: MAPPING } } });
    await expect(failure(search(clash))).resolves.toBeInstanceOf(PartnerConfigError);
    expect(http.calls).toHaveLength(0);
  });

  it('refuses a search answer that is not JSON, or not 2xx', async () => {
    http.answer(200, 'OK');
    await expect(failure(search())).resolves.toEqual(new PartnerProtocolError('the response body is not JSON'));
    http.json('{"ErrorCode":"Unauthorized"}', 401);
    await expect(failure(search())).resolves.toEqual(new PartnerHttpError(401, ''));
  });

  it('submits the mapped application with the Idempotency-Key and decides by the response rules', async () => {
    http.json('{"Decision":"Approved","ApplicationId":"APP-7"}', 201);
    await expect(submit()).resolves.toEqual({ kind: 'accepted', partnerLeadId: 'APP-7' });
    expect(http.sent()).toMatchObject({
      url: 'https://api.exchange.example/v2/v2/applications?tenant=lr',
      body: {
        MatchToken: 'mt_1',
        CampaignCode: 'westlake-001',
        ProgramCode: 'it',
        Responses: { hs_grad_year: '2015' },
        ExternalRef: 'lead-1',
      },
      headers: expect.objectContaining({ 'idempotency-key': 'lead-1', 'x-api-key': 'k-123' }),
    });
    http.json('{"Decision":"AlreadyOnFile","Reason":"On file since May"}', 409);
    await expect(submit()).resolves.toEqual({ kind: 'duplicate', partnerReason: 'On file since May' });
    http.json(`{"Decision":"Declined","Reason":"${'Outside our area. '.repeat(40)}"}`);
    const declined = await submit();
    expect(declined).toMatchObject({ kind: 'rejected' });
    expect(declined.kind === 'rejected' && declined.partnerReason?.length).toBe(500);
    http.json('{"Decision":"Pending"}');
    await expect(submit()).resolves.toEqual({ kind: 'rejected', partnerReason: null });
  });

  it('fails a submit answer the rules cannot read: a 4xx they do not read, a body that is not JSON', async () => {
    http.json('{"error":"INVALID_TOKEN"}', 422);
    await expect(failure(submit())).resolves.toEqual(new PartnerHttpError(422, 'INVALID_TOKEN'));
    http.answer(200, 'thanks');
    await expect(failure(submit())).resolves.toEqual(
      new PartnerProtocolError('the submit answer: the answer is not JSON and no response rule reads it by its status'),
    );
    http.json('{}', 503);
    await expect(failure(submit())).resolves.toEqual(new PartnerHttpError(503, ''));
  });

  it('without submit settings posts the submit document to /submit and reads the sandbox protocol', async () => {
    const partner = exchangeRef({ settings: { search: { results: MAPPING } } });
    http.json('{"result":"accepted","id":"p-1"}');
    await expect(submit(partner)).resolves.toEqual({ kind: 'accepted', partnerLeadId: 'p-1' });
    expect(http.sent()).toMatchObject({
      url: 'https://api.exchange.example/v2/submit?tenant=lr',
      body: { lead_id: 'lead-1', search_id: 's-1', partner_result_id: 'mt_1', external_id: 'westlake-001' },
    });
  });
});

/**
 * Generated partner answers through the adapter (fast-check): a well-formed
 * exchange answer, one with any of its values replaced by anything, or
 * anything at all, with unmapped keys holding canary values (a price, a
 * payout, another offer). Whatever comes back, no exception escapes (every
 * failure is the `error` outcome of a PartnerCallError), every refusal names
 * the path in the answer, and no result holds anything the mapping did not
 * read, nor an offer that was not asked about.
 */
describe('JsonPartnerAdapter with generated answers', () => {
  const http = httpStub();
  beforeEach(http.install);
  afterEach(http.restore);
  // Dropped entries are logged (warn) on every run; what they say is checked below.
  beforeAll(() => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined));
  afterAll(() => jest.restoreAllMocks());
  const CANARY = 'CANARY';
  const canaries = fc.dictionary(
    fc.constantFrom('Payout', 'Price', 'price', 'payout', 'Commission', 'OfferId', 'offer_id', 'CampaignId', 'svc_result_id', 'cpl'),
    fc.oneof(fc.constant(`${CANARY} 38.50`), fc.constant({ Amount: `${CANARY} 99` }), fc.constant([`${CANARY}-other-offer`])),
    { maxKeys: 3 },
  );
  /** Any value, from the well-typed to the hostile. */
  const anyValue: fc.Arbitrary<unknown> = fc.oneof(
    fc.anything({ maxDepth: 2 }),
    text(30),
    unstorableText,
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.integer(),
    fc.double(),
    fc.constant(null),
    fc.constant('x'.repeat(20_000)),
  );
  /** Nested past the bound, anywhere in an answer. */
  const deep = fc.integer({ min: 33, max: 60 }).map((depth) => Array.from({ length: depth }).reduce<unknown>((v) => [v], 'deep'));
  /** A value the mapping reads: nearly always of the right type (so that whole offers fit), sometimes anything. */
  const field = <T>(good: fc.Arbitrary<T>) => fc.oneof({ weight: 49, arbitrary: good }, { weight: 1, arbitrary: anyValue });
  const choice = fc.record({ Id: field(text(10, 1)), Text: field(text(20, 1)) });
  const question = fc.record({
    Key: field(
      fc.oneof(
        { weight: 19, arbitrary: text(20, 1).map((k) => `q_${k}`) },
        { weight: 1, arbitrary: fc.constantFrom('program_id', 'tcpa_consent') },
      ),
    ),
    Prompt: field(text(40, 1)),
    Kind: field(fc.constantFrom('Dropdown', 'FreeText', 'Numeric')),
    Mandatory: field(fc.boolean()),
    Choices: field(fc.array(choice, { minLength: 1, maxLength: 4 })),
  });
  const program = (code: string) =>
    fc.record({ Code: field(fc.constant(code)), Title: field(text(30, 1)), Questions: field(fc.array(question, { maxLength: 3 })) });
  const match = fc
    .record({
      CampaignCode: field(fc.constantFrom('westlake-001', 'harbor-002', 'other-partner-9', CANARY)),
      MatchToken: field(text(40, 1)),
      Institution: field(
        fc.record({
          DisplayName: field(text(30, 1)),
          LogoUrl: field(
            fc.oneof(
              { weight: 9, arbitrary: fc.constant('https://cdn.example.org/a.png') },
              { weight: 1, arbitrary: fc.constant('javascript:alert(1)') },
            ),
          ),
        }),
      ),
      Disclosure: field(text(60, 1)),
      ValidForMinutes: field(fc.integer({ min: 1, max: 100_000 })),
      Programs: field(fc.subarray(['it', 'rn-bsn', 'mba'], { minLength: 1 }).chain((codes) => fc.tuple(...codes.map(program)))),
    })
    .chain((m) => canaries.map((c) => ({ ...c, ...m })));
  const matches = fc.array(fc.oneof({ weight: 9, arbitrary: match }, { weight: 1, arbitrary: anyValue }), { minLength: 1, maxLength: 5 });
  const answer = fc.oneof(
    { weight: 16, arbitrary: fc.record({ RequestId: field(fc.constant('s-1')), Data: field(fc.record({ Matches: field(matches) })) }) },
    { weight: 1, arbitrary: fc.record({ RequestId: fc.constant('s-1'), Data: fc.record({ Matches: matches, Notes: deep }) }) },
    { weight: 1, arbitrary: matches.map((m) => ({ RequestId: 's-1', Matches: m })) },
    { weight: 1, arbitrary: anyValue },
  );
  const body = fc.oneof(
    { weight: 19, arbitrary: answer.map((a) => JSON.stringify(a) ?? 'null') },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
  );

  const RESULT_KEYS = ['expiresInSeconds', 'externalId', 'formFields', 'offerId', 'partnerResultId', 'programs', 'school', 'tcpaText'];
  const FIELD_KEYS = new Set(['name', 'label', 'type', 'required', 'required_when', 'options']);
  /** A refusal names where in the answer (or says the body is no JSON at all). */
  const NAMES_A_PATH = /(Data\.Matches|RequestId|nested deeper than \d+ levels at \S+)|^the response body is not JSON$/;

  function expectOnlyMapped(results: PartnerOfferResult[]): void {
    for (const r of results) {
      expect(ASKED.map((a) => a.offerId)).toContain(r.offerId);
      expect(Object.keys(r).sort()).toEqual(RESULT_KEYS);
      expect(JSON.stringify(r)).not.toContain(CANARY);
      expect(r.programs.length).toBeGreaterThanOrEqual(1);
      for (const f of r.formFields) {
        expect(Object.keys(f).every((k) => FIELD_KEYS.has(k))).toBe(true);
        expect(['select', 'text', 'number']).toContain(f.type);
        for (const id of f.required_when?.program_ids ?? []) expect(r.programs.map((p) => p.value)).toContain(id);
      }
    }
  }

  it('never lets an exception escape, names the path of every refusal, and lets nothing unmapped through', async () => {
    const adapter = new JsonPartnerAdapter(ENV);
    await fc.assert(
      fc.asyncProperty(body, async (raw) => {
        http.json(raw);
        const outcome = await adapter.search(exchangeRef(), searchCall, new AbortController().signal).then(
          (results) => ({ results }),
          (error: unknown) => ({ error }),
        );
        if ('error' in outcome) {
          const failure = describeCallFailure(outcome.error);
          expect([failure.outcome, failure.unexpected]).toEqual(['error', false]);
          expect(outcome.error).toBeInstanceOf(PartnerProtocolError);
          expect((outcome.error as Error).message).toMatch(NAMES_A_PATH);
          return;
        }
        expectOnlyMapped(outcome.results);
        for (const d of readOfferList(JSON.parse(raw), MAPPING, 's-1', ASKED).dropped) {
          if (d.reason === 'malformed') expect(d.problem).toMatch(/^Data\.Matches\[\d+\]/);
        }
      }),
      { numRuns: 300 },
    );
  });
});
