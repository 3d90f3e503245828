import { randomUUID } from 'node:crypto';
import { call, HttpAnswer } from '../support/http';
import { answerOf, DISTINCT_PRICES, expectErrorEnvelope, expectNoPrice } from '../support/hostile';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey, runOps } from '../support/ops';
import { person, Person } from '../support/submit-flow';
import { testEnv, uniqueSuffix } from '../support/test-env';
import { campaign, catalogOffer, partnerOffer } from '../support/catalog-builder';

/**
 * Isolation between affiliates, over HTTP against two running gateways (so a
 * revocation is shown to reach every gateway) and every worker with the
 * sandbox's schools and partner (docs/security-testing.md):
 * - every endpoint, given another affiliate's search, result, lead, offer,
 *   campaign or affiliate id, answers exactly as the contract says (404 or
 *   403), the same as for an id that does not exist wherever the contract
 *   gives both one answer, and the answer holds none of the other affiliate's
 *   ids, names, consent texts, payouts or contact data;
 * - revoked and expired keys are refused on the very next request on every
 *   endpoint of every gateway, although the gateways cache keys for a minute;
 * - no answer anywhere in this file (searches and polls live and in test mode,
 *   own and partner results, accepted, refused, pending and held submits, lead
 *   status reads, pre-checks, and every error) shows an offer's price.
 * What the other e2e files already pin (status codes of these refusals) is not
 * repeated for its own sake; the rows here add the body checks and the
 * equality with unknown ids.
 */
describe('isolation between affiliates (e2e)', () => {
  const suffix = uniqueSuffix();
  // A roomy budget for calls without a usable key: revoked and expired keys are tried on every endpoint of two gateways.
  const env = testEnv(suffix, {
    SUBMIT_ANSWER_TIMEOUT_MS: '1500',
    API_KEY_CACHE_MS: '60000',
    UNAUTHENTICATED_PER_MINUTE: '600000',
    UNAUTHENTICATED_BURST: '100000',
  });
  const id = () => randomUUID();
  const ids = {
    affA: id(),
    affB: id(),
    schoolA: id(),
    schoolShared: id(),
    schoolPartner: id(),
    partner: id(),
    offerA: id(),
    offerSlow: id(),
    offerRejecting: id(),
    offerShared: id(),
    partnerOffer: id(),
    cA: id(),
    cA2: id(),
    cB: id(),
  };
  const school = (name: string) => `iso${suffix}-${name}`;
  /** A's terms: what B must never see. Payouts only A's campaigns carry. */
  const A_PAYOUTS = [31.17, 12.34, 22.22, 1.11, 9.87];
  const B_PAYOUTS = { shared: 4.56, partner: 3.33 };
  /** A-only offer and school names (each offer's consent text names its offer too). */
  const A_NAMES = ['Alpha Secret Nursing', 'Alpha Slow Offer', 'Alpha Rejecting Offer', 'Isolation School Alpha'];

  let sandbox: RunningApp;
  let gateway: RunningApp;
  let gateway2: RunningApp;
  let keyA: string;
  let keyB: string;
  const personA: Person = person();
  const personB: Person = person();
  /** Every answer this file received, for the price scan at the end. */
  const answers: Array<{ label: string; res: HttpAnswer }> = [];
  /** What A's flows created. */
  const a = {
    liveSearch: '',
    testSearch: '',
    results: new Map<string, string>(),
    testResults: new Map<string, string>(),
    acceptedLead: '',
    rejectedLead: '',
    pendingLead: '',
    heldLead: '',
    partnerLead: '',
    directLead: '',
  };
  const b = { search: '', results: new Map<string, string>() };

  async function rec(
    label: string,
    method: string,
    path: string,
    opts: Parameters<typeof call>[3] = {},
    url = gateway.url,
  ): Promise<HttpAnswer> {
    const res = await call(url, method, path, opts);
    answers.push({ label, res });
    return res;
  }
  const search = (key: string, campaignId: string, affiliateId: string, lead: Person, extra: Record<string, unknown> = {}) =>
    rec(`search ${extra.svc_is_test_lead ? 'test' : 'live'}`, 'POST', '/api/v1/engine/search', {
      key,
      body: { svc_campaign_id: campaignId, svc_affiliate_id: affiliateId, lead, tracking: { ip_address: '73.12.44.10' }, ...extra },
    });
  async function searchDone(key: string, campaignId: string, affiliateId: string, lead: Person, extra: Record<string, unknown> = {}) {
    const first = await search(key, campaignId, affiliateId, lead, extra);
    expect(first.status).toBe(200);
    let body = first.body;
    for (let i = 0; !body.processing_done && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 150));
      body = (await rec('poll', 'GET', `/api/v1/engine/results/${body.svc_lead_id}`, { key })).body;
    }
    expect(body.processing_done).toBe(true);
    return {
      searchId: body.svc_lead_id as string,
      results: new Map<string, string>(
        (body.offers as Array<{ offer: { id: string }; svc_result_id: string }>).map((o) => [o.offer.id, o.svc_result_id]),
      ),
      body,
    };
  }
  const submit = (label: string, key: string, body: Record<string, unknown>) => rec(label, 'POST', '/api/v1/engine/leads', { key, body });
  const resultSubmit = (
    key: string,
    campaignId: string,
    affiliateId: string,
    searchId: string,
    resultId: string,
    extra: Record<string, unknown> = {},
  ) =>
    submit('result submit', key, {
      svc_campaign_id: campaignId,
      svc_affiliate_id: affiliateId,
      svc_result_id: resultId,
      search_lead_id: searchId,
      tcpa_consent: true,
      consent_button_label: 'Request info',
      program_id: 'gen',
      ...extra,
    });
  const directPost = (
    key: string,
    campaignId: string,
    affiliateId: string,
    offerId: string,
    lead: Person,
    extra: Record<string, unknown> = {},
  ) =>
    submit('direct post', key, {
      svc_campaign_id: campaignId,
      svc_affiliate_id: affiliateId,
      svc_offer_id: offerId,
      lead,
      tracking: { ip_address: '73.12.44.10' },
      tcpa_consent: true,
      program_id: 'gen',
      ...extra,
    });

  const own = (offerId: string, schoolId: string, name: string, price: number, outcome: string) =>
    catalogOffer(offerId, schoolId, name, {
      source: 'own',
      priority: 5,
      price,
      tcpa_text: `I agree that ${name} may contact me.`,
      result_ttl_seconds: 900,
      programs: [{ value: 'gen', label: 'General Studies' }],
      delivery: {
        adapter: 'sandbox',
        url: `${sandbox.url}/schools/${school(name.toLowerCase().replace(/\W+/g, '-'))}/leads?outcome=${outcome}`,
        timeout_ms: 6000,
      },
    });

  beforeAll(async () => {
    sandbox = await startApp('sandbox', env, 'live');
    applyCatalog(
      {
        affiliates: [
          { id: ids.affA, name: 'Isolation A', status: 'active', dupe_check: true },
          { id: ids.affB, name: 'Isolation B', status: 'active', dupe_check: true },
        ],
        schools: [
          { id: ids.schoolA, name: 'Isolation School Alpha', logo_url: null },
          { id: ids.schoolShared, name: 'Isolation School Shared', logo_url: null },
          // A live search shows a school once: the partner offer has its own.
          { id: ids.schoolPartner, name: 'Isolation School Partner', logo_url: null },
        ],
        partners: [
          {
            id: ids.partner,
            name: 'Isolation partner',
            adapter: 'sandbox',
            base_url: `${sandbox.url}/partners/${school('partner')}?match=all&delay_ms=300&outcome=accept`,
            timeout_ms: 5000,
          },
        ],
        offers: [
          own(ids.offerA, ids.schoolA, 'Alpha Secret Nursing', DISTINCT_PRICES[0], 'accept'),
          own(ids.offerSlow, ids.schoolA, 'Alpha Slow Offer', DISTINCT_PRICES[0], 'accept&delay_ms=2500'),
          own(ids.offerRejecting, ids.schoolA, 'Alpha Rejecting Offer', DISTINCT_PRICES[0], 'reject'),
          own(ids.offerShared, ids.schoolShared, 'Shared Offer', DISTINCT_PRICES[1], 'accept'),
          partnerOffer(ids.partnerOffer, ids.schoolPartner, 'Partner Offer', ids.partner, `ext-${ids.partnerOffer.slice(0, 8)}`, {
            result_ttl_seconds: 600,
          }),
        ],
        campaigns: [
          campaign(ids.cA, ids.affA, 'A', [
            { offer_id: ids.offerA, payout: A_PAYOUTS[0] },
            { offer_id: ids.offerShared, payout: A_PAYOUTS[1] },
            { offer_id: ids.partnerOffer, payout: A_PAYOUTS[2] },
            { offer_id: ids.offerSlow, payout: A_PAYOUTS[4] },
            { offer_id: ids.offerRejecting, payout: A_PAYOUTS[4] },
          ]),
          campaign(ids.cA2, ids.affA, 'A two', [{ offer_id: ids.offerA, payout: A_PAYOUTS[3] }]),
          campaign(ids.cB, ids.affB, 'B', [
            { offer_id: ids.offerShared, payout: B_PAYOUTS.shared },
            { offer_id: ids.partnerOffer, payout: B_PAYOUTS.partner },
          ]),
        ],
      },
      env,
    );
    const roomy = [
      '--limit',
      'search=6000/1000',
      '--limit',
      'results=6000/1000',
      '--limit',
      'leads=6000/1000',
      '--limit',
      'dupe-check=6000/1000',
    ];
    keyA = issueKey(ids.affA, env, roomy).key;
    keyB = issueKey(ids.affB, env, roomy).key;
    await Promise.all([
      startApp('checks', env),
      startApp('partner-adapter', env),
      startApp('search-orchestrator', env),
      startApp('delivery', env),
    ]);
    [gateway, gateway2] = await Promise.all([startApp('gateway', env), startApp('gateway', env)]);

    // A's traffic: searches live and in test mode (own and partner results), then every kind of submit answer.
    const live = await searchDone(keyA, ids.cA, ids.affA, personA);
    a.liveSearch = live.searchId;
    a.results = live.results;
    const test = await searchDone(keyA, ids.cA, ids.affA, person(), { svc_is_test_lead: true });
    a.testSearch = test.searchId;
    a.testResults = test.results;
    const accepted = await resultSubmit(keyA, ids.cA, ids.affA, a.liveSearch, a.results.get(ids.offerA)!);
    expect([accepted.status, accepted.body.code, accepted.body.payout]).toEqual([200, 'ACCEPTED', A_PAYOUTS[0]]);
    a.acceptedLead = accepted.body.svc_lead_id;
    const partnerSold = await resultSubmit(
      keyA,
      ids.cA,
      ids.affA,
      a.liveSearch,
      a.results.get(ids.partnerOffer)!,
      partnerAnswers(live.body),
    );
    expect(partnerSold.body.code).toBe('ACCEPTED');
    a.partnerLead = partnerSold.body.svc_lead_id;
    // Same school as offerA: a live search shows only one of them, so this one is posted directly.
    const rejected = await directPost(keyA, ids.cA, ids.affA, ids.offerRejecting, person());
    expect([rejected.body.code, rejected.body.payout]).toEqual(['BUYER_REJECTED', 0]);
    a.rejectedLead = rejected.body.svc_lead_id;
    const pending = await directPost(keyA, ids.cA, ids.affA, ids.offerSlow, person());
    expect([pending.status, pending.body.code]).toEqual([202, 'PENDING']);
    a.pendingLead = pending.body.svc_lead_id;
    const held = await resultSubmit(keyA, ids.cA, ids.affA, a.testSearch, a.testResults.get(ids.offerA)!);
    expect(held.body.code).toBe('TEST_LEAD_HELD');
    a.heldLead = held.body.svc_lead_id;
    const direct = await directPost(keyA, ids.cA2, ids.affA, ids.offerA, person());
    expect([direct.body.code, direct.body.payout]).toEqual(['ACCEPTED', A_PAYOUTS[3]]);
    a.directLead = direct.body.svc_lead_id;

    // B's own traffic on the shared and partner offers.
    const bs = await searchDone(keyB, ids.cB, ids.affB, personB);
    b.search = bs.searchId;
    b.results = bs.results;
  });

  afterAll(async () => {
    await stopAppsAndTopology(env);
  });

  /** Answers to a partner result's questions: its first program and the first option of each question. */
  function partnerAnswers(body: {
    offers: Array<{
      offer: { id: string };
      programs: Array<{ value: string }>;
      form_fields: Array<{ name: string; options?: Array<{ value: string }> }>;
    }>;
  }) {
    const entry = body.offers.find((o) => o.offer.id === ids.partnerOffer)!;
    return {
      program_id: entry.programs[0]?.value,
      ...Object.fromEntries(entry.form_fields.map((f) => [f.name, f.options?.[0]?.value ?? 'yes'])),
    };
  }

  /** Nothing of A's in an answer B got: A's ids, A-only offer and school names and consent text, A's payouts, A's person. */
  function expectNothingOfA(res: HttpAnswer, context: string): void {
    const secrets: Array<[string, RegExp]> = [
      ...[
        ids.affA,
        ids.cA,
        ids.cA2,
        ids.offerA,
        ids.offerSlow,
        ids.offerRejecting,
        a.liveSearch,
        a.testSearch,
        a.acceptedLead,
        a.rejectedLead,
        a.pendingLead,
        a.heldLead,
        a.partnerLead,
        a.directLead,
        ...a.results.values(),
        ...a.testResults.values(),
      ]
        .filter(Boolean)
        .map((s): [string, RegExp] => [s, new RegExp(s, 'i')]),
      ...A_NAMES.map((s): [string, RegExp] => [s, new RegExp(s, 'i')]),
      ...A_PAYOUTS.map((p): [string, RegExp] => [String(p), new RegExp(`(?<![\\d.])${String(p).replace('.', '\\.')}(?!\\d)`)]),
      ...[personA.personal.email, personA.personal.last_name, personA.personal.phone].map((s): [string, RegExp] => [s, new RegExp(s, 'i')]),
    ];
    for (const [name, pattern] of secrets) expect([context, name, pattern.test(res.text)]).toEqual([context, name, false]);
  }

  describe("another affiliate's ids, endpoint by endpoint", () => {
    type Row = [
      label: string,
      send: () => Promise<HttpAnswer>,
      status: number,
      code: string,
      extra: Record<string, unknown>,
      sameAs?: () => Promise<HttpAnswer>,
    ];
    const unknown = () => randomUUID();
    const rows = (): Row[] => [
      // search
      [
        "search on A's campaign",
        () => search(keyB, ids.cA, ids.affB, personB),
        400,
        'NOT_FOUND',
        { field: 'svc_campaign_id' },
        () => search(keyB, unknown(), ids.affB, personB),
      ],
      [
        "search on A's offer id as a campaign",
        () => search(keyB, ids.offerA, ids.affB, personB),
        400,
        'NOT_FOUND',
        { field: 'svc_campaign_id' },
        () => search(keyB, unknown(), ids.affB, personB),
      ],
      ["search naming A's affiliate id (own campaign)", () => search(keyB, ids.cB, ids.affA, personB), 403, 'FORBIDDEN', {}],
      ["search naming A's affiliate id and campaign", () => search(keyB, ids.cA, ids.affA, personB), 403, 'FORBIDDEN', {}],
      // results/{svc_lead_id}
      ...(['liveSearch', 'testSearch'] as const).map((k): Row => [
        `poll of A's ${k}`,
        () => rec('poll', 'GET', `/api/v1/engine/results/${a[k]}`, { key: keyB }),
        404,
        'NOT_FOUND',
        {},
        () => rec('poll', 'GET', `/api/v1/engine/results/${unknown()}`, { key: keyB }),
      ]),
      ...(
        [
          ["A's result id", () => a.results.get(ids.offerA)!],
          ["A's lead id", () => a.acceptedLead],
          ["A's campaign id", () => ids.cA],
          ["A's offer id", () => ids.offerA],
          ["A's affiliate id", () => ids.affA],
        ] as const
      ).flatMap(([what, value]): Row[] => [
        [
          `poll of ${what} (B's key)`,
          () => rec('poll', 'GET', `/api/v1/engine/results/${value()}`, { key: keyB }),
          404,
          'NOT_FOUND',
          {},
          () => rec('poll', 'GET', `/api/v1/engine/results/${unknown()}`, { key: keyB }),
        ],
      ]),
      // leads/{svc_lead_id}
      ...(['acceptedLead', 'rejectedLead', 'pendingLead', 'heldLead', 'partnerLead', 'directLead'] as const).map((k): Row => [
        `lead status of A's ${k}`,
        () => rec('lead status', 'GET', `/api/v1/engine/leads/${a[k]}`, { key: keyB }),
        404,
        'NOT_FOUND',
        {},
        () => rec('lead status', 'GET', `/api/v1/engine/leads/${unknown()}`, { key: keyB }),
      ]),
      ...(
        [
          ["A's search id", () => a.liveSearch],
          ["A's result id", () => a.results.get(ids.offerA)!],
          ["A's offer id", () => ids.offerA],
          ["A's campaign id", () => ids.cA],
          ["A's affiliate id", () => ids.affA],
        ] as const
      ).map(([what, value]): Row => [
        `lead status of ${what}`,
        () => rec('lead status', 'GET', `/api/v1/engine/leads/${value()}`, { key: keyB }),
        404,
        'NOT_FOUND',
        {},
        () => rec('lead status', 'GET', `/api/v1/engine/leads/${unknown()}`, { key: keyB }),
      ]),
      // leads: result submit
      [
        "submit of A's result on B's campaign",
        () => resultSubmit(keyB, ids.cB, ids.affB, a.liveSearch, a.results.get(ids.offerShared)!),
        404,
        'NOT_FOUND',
        { error: 'search_result_not_found' },
        () => resultSubmit(keyB, ids.cB, ids.affB, a.liveSearch, unknown()),
      ],
      // The partner offer is on B's campaign too: A's partner result still is not B's.
      [
        "submit of A's partner result on B's campaign",
        () => resultSubmit(keyB, ids.cB, ids.affB, a.liveSearch, a.results.get(ids.partnerOffer)!),
        404,
        'NOT_FOUND',
        { error: 'search_result_not_found' },
        () => resultSubmit(keyB, ids.cB, ids.affB, unknown(), unknown()),
      ],
      [
        "submit of B's result under A's search id",
        () => resultSubmit(keyB, ids.cB, ids.affB, a.liveSearch, b.results.get(ids.offerShared)!),
        404,
        'NOT_FOUND',
        { error: 'search_result_not_found' },
      ],
      [
        "submit of A's result on A's campaign",
        () => resultSubmit(keyB, ids.cA, ids.affB, a.liveSearch, a.results.get(ids.offerA)!),
        403,
        'FORBIDDEN',
        {},
      ],
      [
        "submit naming A's affiliate id",
        () => resultSubmit(keyB, ids.cB, ids.affA, b.search, b.results.get(ids.offerShared)!),
        403,
        'FORBIDDEN',
        {},
      ],
      // leads: direct post
      ["direct post to A's offer on B's campaign", () => directPost(keyB, ids.cB, ids.affB, ids.offerA, person()), 403, 'FORBIDDEN', {}],
      ["direct post to A's offer on A's campaign", () => directPost(keyB, ids.cA, ids.affB, ids.offerA, person()), 403, 'FORBIDDEN', {}],
      [
        "direct post retry naming A's direct post",
        () => directPost(keyB, ids.cB, ids.affB, ids.offerShared, person(), { svc_lead_id: a.directLead }),
        404,
        'NOT_FOUND',
        {},
        () => directPost(keyB, ids.cB, ids.affB, ids.offerShared, person(), { svc_lead_id: unknown() }),
      ],
      // dupe-check
      [
        "pre-check scoped to A's offer",
        () =>
          rec('dupe-check', 'POST', '/api/v1/engine/dupe-check', {
            key: keyB,
            body: { email: personA.personal.email, offer_id: ids.offerA },
          }),
        403,
        'FORBIDDEN',
        {},
        () =>
          rec('dupe-check', 'POST', '/api/v1/engine/dupe-check', {
            key: keyB,
            body: { email: personA.personal.email, offer_id: unknown() },
          }),
      ],
      [
        "pre-check scoped to A's campaign id as an offer",
        () =>
          rec('dupe-check', 'POST', '/api/v1/engine/dupe-check', { key: keyB, body: { email: personA.personal.email, offer_id: ids.cA } }),
        403,
        'FORBIDDEN',
        {},
        () =>
          rec('dupe-check', 'POST', '/api/v1/engine/dupe-check', {
            key: keyB,
            body: { email: personA.personal.email, offer_id: unknown() },
          }),
      ],
    ];

    it('each answers the contract’s refusal, holds nothing of A’s, and equals the answer to an unknown id where the contract gives both one answer', async () => {
      for (const [label, send, status, code, extra, sameAs] of rows()) {
        const res = await send();
        expect([label, res.status, res.body?.code]).toEqual([label, status, code]);
        expect([label, res.body]).toEqual([label, expect.objectContaining(extra)]);
        expectErrorEnvelope(answerOf(res), 'POST');
        expectNothingOfA(res, label);
        if (sameAs) {
          const other = await sameAs();
          expect([label, res.status, res.body]).toEqual([label, other.status, other.body]);
        }
      }
      // Nothing B tried was stored or sent to a school.
      const got = (await (await fetch(`${sandbox.url}/schools/${school('alpha-secret-nursing')}/received`)).json()) as { leads: unknown[] };
      expect(got.leads).toHaveLength(2); // A's accepted result submit and direct post
    });

    it("A's key cannot reach its own things under the wrong kind of id either: 404 for a result, lead or campaign id polled, a search id read as a lead", async () => {
      for (const value of [a.results.get(ids.offerA)!, a.acceptedLead, ids.cA, ids.offerA]) {
        const res = await rec('poll', 'GET', `/api/v1/engine/results/${value}`, { key: keyA });
        expect([value, res.status, res.body.code]).toEqual([value, 404, 'NOT_FOUND']);
      }
      for (const value of [a.liveSearch, a.results.get(ids.offerA)!]) {
        const res = await rec('lead status', 'GET', `/api/v1/engine/leads/${value}`, { key: keyA });
        expect([value, res.status, res.body.code]).toEqual([value, 404, 'NOT_FOUND']);
      }
    });

    it("B's own results on shared offers carry B's payouts and campaign, never A's", async () => {
      const poll = await rec('poll', 'GET', `/api/v1/engine/results/${b.search}`, { key: keyB });
      expect(poll.status).toBe(200);
      const byOffer = new Map<string, any>(poll.body.offers.map((o: any) => [o.offer.id, o])); // eslint-disable-line @typescript-eslint/no-explicit-any -- a result entry as the JSON answer shows it; each test reads the fields it asserts on.
      expect([...byOffer.keys()].sort()).toEqual([ids.offerShared, ids.partnerOffer].sort());
      expect(byOffer.get(ids.offerShared)).toEqual(expect.objectContaining({ campaign_id: ids.cB, payout: B_PAYOUTS.shared }));
      expect(byOffer.get(ids.partnerOffer)).toEqual(expect.objectContaining({ campaign_id: ids.cB, payout: B_PAYOUTS.partner }));
      expectNothingOfA(poll, "B's poll");
      // And A's see A's terms for the same offers.
      const mine = await rec('poll', 'GET', `/api/v1/engine/results/${a.liveSearch}`, { key: keyA });
      const aByOffer = new Map<string, any>(mine.body.offers.map((o: any) => [o.offer.id, o])); // eslint-disable-line @typescript-eslint/no-explicit-any -- a result entry as the JSON answer shows it; each test reads the fields it asserts on.
      expect(aByOffer.get(ids.offerShared).payout).toBe(A_PAYOUTS[1]);
      expect(aByOffer.get(ids.partnerOffer).payout).toBe(A_PAYOUTS[2]);
    });
  });

  describe('revoked and expired keys, with keys cached for a minute on two gateways', () => {
    /** One request per endpoint that a live key passes (none of them stores anything). */
    const everyEndpoint = (key: string) =>
      [
        [
          'search',
          'POST',
          '/api/v1/engine/search',
          { key, body: { svc_campaign_id: ids.cA, svc_affiliate_id: ids.affA, lead: 'x', tracking: {} } },
          400,
        ],
        ['results', 'GET', `/api/v1/engine/results/${a.liveSearch}`, { key }, 200],
        ['leads', 'POST', '/api/v1/engine/leads', { key, body: { svc_campaign_id: ids.cA, svc_affiliate_id: ids.affA } }, 400],
        ['lead status', 'GET', `/api/v1/engine/leads/${a.acceptedLead}`, { key }, 200],
        ['dupe-check', 'POST', '/api/v1/engine/dupe-check', { key, body: { email: personB.personal.email } }, 200],
      ] as const;

    async function expectEveryEndpoint(key: string, live: boolean, label: string) {
      for (const gw of [gateway, gateway2]) {
        for (const [name, method, path, opts, okStatus] of everyEndpoint(key)) {
          const res = await rec(`${label} ${name}`, method, path, opts, gw.url);
          const context = `${label}: ${name} on ${gw.url}`;
          if (live) expect([context, res.status]).toEqual([context, okStatus]);
          else {
            expect([context, res.status, res.body?.code, res.body?.reason]).toEqual([context, 401, 'AUTH_INVALID', 'Invalid API key']);
            expectErrorEnvelope(answerOf(res), method);
            expectNothingOfA(res, context);
          }
        }
      }
    }

    it('keys revoke: the very next request on every endpoint of every gateway is 401 AUTH_INVALID; the affiliate’s other keys keep working', async () => {
      const issued = issueKey(ids.affA, env);
      await expectEveryEndpoint(issued.key, true, 'before revoke'); // now cached on both gateways
      expect(runOps(['keys', 'revoke', issued.id], env).code).toBe(0);
      await expectEveryEndpoint(issued.key, false, 'after revoke');
      await expectEveryEndpoint(keyA, true, 'another key of A');
    });

    it('an expired key is refused on every endpoint of every gateway as soon as it expires, cached or not', async () => {
      // Room for the CLI and the warm-up on a busy machine; the wait is what is left of it.
      const expiresAt = Date.now() + 8000;
      const issued = issueKey(ids.affA, env, ['--expires-at', new Date(expiresAt).toISOString()]);
      await expectEveryEndpoint(issued.key, true, 'before expiry');
      await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now()) + 300));
      await expectEveryEndpoint(issued.key, false, 'after expiry');
    });
  });

  describe('no answer shows an offer’s price', () => {
    it('pending and final lead status reads, and pre-check decisions, are in the scan too', async () => {
      for (const lead of [a.acceptedLead, a.rejectedLead, a.heldLead, a.partnerLead, a.directLead]) {
        expect((await rec('lead status', 'GET', `/api/v1/engine/leads/${lead}`, { key: keyA })).status).toBe(200);
      }
      let status = await rec('lead status', 'GET', `/api/v1/engine/leads/${a.pendingLead}`, { key: keyA });
      for (let i = 0; status.body.status === 'pending' && i < 60; i++) {
        await new Promise((r) => setTimeout(r, 200));
        status = await rec('lead status', 'GET', `/api/v1/engine/leads/${a.pendingLead}`, { key: keyA });
      }
      expect([status.body.code, status.body.payout]).toEqual(['ACCEPTED', A_PAYOUTS[4]]);
      const dupe = await rec('dupe-check', 'POST', '/api/v1/engine/dupe-check', {
        key: keyA,
        body: { email: personA.personal.email, offer_id: ids.offerA },
      });
      expect([dupe.status, dupe.body.duplicate_likely]).toEqual([200, true]);
    });

    it('every answer of this file (all endpoints, live and test, own and partner results, every decision and error): no price key, no price value', () => {
      const labels = new Set(answers.map((x) => `${x.label} ${x.res.status}`));
      // The scan covers what it claims to.
      for (const needed of [
        'search live 200',
        'search test 200',
        'poll 200',
        'result submit 200',
        'direct post 202',
        'direct post 200',
        'lead status 200',
        'dupe-check 200',
        'poll 404',
        'result submit 404',
        'direct post 403',
      ]) {
        expect([needed, labels.has(needed)]).toEqual([needed, true]);
      }
      const partnerPolls = answers.filter((x) => x.label === 'poll' && x.res.status === 200 && x.res.text.includes(ids.partnerOffer));
      expect(partnerPolls.length).toBeGreaterThan(0);
      const testPolls = answers.filter((x) => x.res.status === 200 && x.res.text.includes(a.testSearch));
      expect(testPolls.length).toBeGreaterThan(0);
      for (const { label, res } of answers) {
        try {
          expectNoPrice(res.text);
        } catch (e) {
          throw new Error(`${label} (${res.status}) shows a price: ${res.text.slice(0, 500)}\n${(e as Error).message}`, { cause: e });
        }
      }
    });
  });
  // Last: it suppresses A's person for the rest of the file.
  describe('opt-outs: another affiliate learns nothing', () => {
    it("B's opt-out of the person A sold answers exactly what it answers for a stranger, twice over; nothing of A's, no price", async () => {
      const optOut = (body: Record<string, unknown>) => rec('opt-out', 'POST', '/api/v1/engine/opt-outs', { key: keyB, body });
      const answers = [
        await optOut({ email: personA.personal.email }),
        await optOut({ email: person().personal.email }),
        await optOut({ phone: personA.personal.phone, email: personA.personal.email }),
      ];
      const ids = new Set<string>();
      for (const [i, res] of answers.entries()) {
        const label = `opt-out ${i}`;
        const { opt_out_id, ...rest } = res.body as { opt_out_id: string };
        ids.add(opt_out_id);
        const headerNames = (h: Headers) => [...h.keys()].sort();
        expect([label, res.status, rest, headerNames(res.headers)]).toEqual([
          label,
          200,
          { code: 'OK', status: 'accepted', reason: 'OK', success: true, retryable: false },
          headerNames(answers[0].headers),
        ]);
        expectNothingOfA(res, label);
        expectNoPrice(res.text);
      }
      expect(ids.size).toBe(3);
    });
  });
});
