import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { campaign, catalogOffer, partnerOffer, searchBody } from '../support/catalog-builder';
import { person } from '../support/submit-flow';
import { call } from '../support/http';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey } from '../support/ops';
import { answerOf, AnswerLike, DISTINCT_PRICES, expectErrorEnvelope, expectNoPrice, rawRequest, StoredState } from '../support/hostile';
import { openedRow } from '../support/sealed-rows';
import {
  Body,
  Break,
  breakOf,
  extraKey,
  extras,
  Json,
  leadBreak,
  missingBreak,
  notObject,
  notString,
  notUuid,
  optionalFieldBreak,
  Refusal,
  safeJson,
  someBreaks,
  text,
  trackingBreak,
  unstorableExtraBreak,
  unstorableText,
  uuidFieldBreak,
  wholeBodyBreak,
} from '../support/hostile-arbitraries';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../support/test-env';

/**
 * Hostile input, property-based (fast-check) against the running gateway over
 * HTTP, with the search-orchestrator, checks and delivery workers behind it on
 * the real PostgreSQL, Redis and RabbitMQ (docs/security-testing.md). For every
 * endpoint, generated requests (broken bodies, wrong types, every corner of
 * Unicode, deep nesting, prototype-pollution keys, sizes around the limits,
 * odd path ids, wrong methods, content types and headers) must be answered
 * without a 5xx, in the contract's envelope exactly, naming the field where
 * the contract says; and every refused request must leave nothing behind: no
 * row in any table and no message in any queue (checked after every request,
 * so a failure shrinks to the one request that stored something).
 *
 * Reproduce a failure: fast-check prints its seed and path;
 *   HOSTILE_SEED=<seed> HOSTILE_PATH=<path> npx jest --selectProjects e2e --testPathPattern hostile-input -t '<test name>'
 * HOSTILE_SEED=random explores new inputs; HOSTILE_RUNS=<factor> scales the number of runs.
 */

const SEED = process.env.HOSTILE_SEED === 'random' ? undefined : Number(process.env.HOSTILE_SEED ?? 20261122);
const RUN_SCALE = Number(process.env.HOSTILE_RUNS ?? 1);
function settings(numRuns: number): fc.Parameters<unknown> {
  return {
    numRuns: Math.max(1, Math.round(numRuns * RUN_SCALE)),
    seed: SEED,
    path: process.env.HOSTILE_PATH,
    interruptAfterTimeLimit: 60_000,
  };
}

const SEARCH = '/api/v1/engine/search';
const LEADS = '/api/v1/engine/leads';
const DUPE = '/api/v1/engine/dupe-check';
const OPT_OUT = '/api/v1/engine/opt-outs';
const BODY_LIMIT = 256 * 1024;
const DUPE_LIMIT = 16 * 1024;
const OPT_OUT_LIMIT = 16 * 1024;

describe('hostile input (e2e, property-based)', () => {
  // A roomy budget for calls without a usable key: this file sends hundreds of them on purpose (the budget itself: gateway-hardening.e2e-spec.ts).
  const env = testEnv(uniqueSuffix(), { UNAUTHENTICATED_PER_MINUTE: '600000', UNAUTHENTICATED_BURST: '100000' });
  const id = () => randomUUID();
  const ids = {
    affH: id(),
    affO: id(),
    school: id(),
    partner: id(),
    offerX: id(),
    offerY: id(),
    partnerOffer: id(),
    cH: id(),
    cH2: id(),
    cHPaused: id(),
    cO: id(),
    cPartner: id(),
  };
  let gateway: RunningApp;
  let keyH: string;
  let keyO: string;
  let state: StoredState;
  let db: Client;
  /** Ids the setup created: H's test search and its result, a result submit and a direct post of H; O's search and result. */
  const made = { searchH: '', resultH: '', submitLeadH: '', directLeadH: '', searchO: '', resultO: '' };
  let baseline: Record<string, number>;

  /** Offer X's questions (the answers property below reads the contract's question rules against them). */
  const QUESTIONS = [
    {
      name: 'hs_grad_year',
      label: 'HS grad year',
      type: 'select',
      required: true,
      options: [
        { value: '2012', label: '2012' },
        { value: '2013', label: '2013' },
      ],
    },
    { name: 'credits', label: 'Credits earned', type: 'number', required: false },
    { name: 'goal', label: 'Your goal', type: 'text', required: false },
  ];
  const own = (offerId: string, name: string, price: number) =>
    catalogOffer(offerId, ids.school, name, {
      source: 'own',
      priority: 5,
      price,
      tcpa_text: `I agree that ${name} may contact me.`,
      result_ttl_seconds: 900,
      programs: [
        { value: 'gen', label: 'General Studies' },
        { value: 'msn', label: 'MS in Nursing' },
      ],
      form_fields: QUESTIONS,
      // Never called: every lead this file lets through is a test lead, held and not delivered.
      delivery: { adapter: 'sandbox', url: 'http://127.0.0.1:9/schools/hostile/leads?outcome=accept' },
    });

  beforeAll(async () => {
    applyCatalog(
      {
        affiliates: [
          { id: ids.affH, name: 'Hostile H', status: 'active', dupe_check: true },
          { id: ids.affO, name: 'Hostile O', status: 'active', dupe_check: true },
        ],
        schools: [{ id: ids.school, name: 'Hostile School', logo_url: null }],
        partners: [
          {
            id: ids.partner,
            name: 'Hostile partner',
            adapter: 'sandbox',
            base_url: 'http://127.0.0.1:9/partners/hostile?match=all',
            timeout_ms: 1000,
          },
        ],
        offers: [
          own(ids.offerX, 'Offer X', DISTINCT_PRICES[0]),
          own(ids.offerY, 'Offer Y', DISTINCT_PRICES[1]),
          partnerOffer(ids.partnerOffer, ids.school, 'Partner offer', ids.partner, `ext-${ids.partnerOffer.slice(0, 8)}`, {
            result_ttl_seconds: 600,
          }),
        ],
        // Own offers only on the searched campaigns: a search is complete when answered, nothing arrives later.
        campaigns: [
          campaign(ids.cH, ids.affH, 'H', [{ offer_id: ids.offerX, payout: 20 }]),
          campaign(ids.cH2, ids.affH, 'H two', [{ offer_id: ids.offerX, payout: 5 }]),
          campaign(ids.cHPaused, ids.affH, 'H paused', [{ offer_id: ids.offerX }], { status: 'paused' }),
          campaign(ids.cO, ids.affO, 'O', [
            { offer_id: ids.offerX, payout: 7 },
            { offer_id: ids.offerY, payout: 7 },
          ]),
          campaign(ids.cPartner, ids.affO, 'O partner', [{ offer_id: ids.partnerOffer }]),
        ],
      },
      env,
    );
    const roomy = [
      '--limit',
      'search=100000/100000',
      '--limit',
      'results=100000/100000',
      '--limit',
      'leads=100000/100000',
      '--limit',
      'dupe-check=100000/100000',
      '--limit',
      'opt-outs=100000/100000',
    ];
    keyH = issueKey(ids.affH, env, roomy).key;
    keyO = issueKey(ids.affO, env, roomy).key;
    await Promise.all([startApp('checks', env), startApp('search-orchestrator', env), startApp('delivery', env)]);
    gateway = await startApp('gateway', env);

    const sH = await call(gateway.url, 'POST', SEARCH, { key: keyH, body: searchBody(ids.cH, ids.affH, { svc_is_test_lead: true }) });
    expect([sH.status, sH.body.processing_done]).toEqual([200, true]);
    made.searchH = sH.body.svc_lead_id;
    made.resultH = sH.body.offers[0].svc_result_id;
    const sO = await call(gateway.url, 'POST', SEARCH, { key: keyO, body: searchBody(ids.cO, ids.affO, { svc_is_test_lead: true }) });
    expect(sO.status).toBe(200);
    made.searchO = sO.body.svc_lead_id;
    made.resultO = sO.body.offers[0].svc_result_id;
    const submitted = await call(gateway.url, 'POST', LEADS, { key: keyH, body: resultSubmit() });
    expect([submitted.status, submitted.body.code]).toEqual([200, 'TEST_LEAD_HELD']);
    made.submitLeadH = submitted.body.svc_lead_id;
    const posted = await call(gateway.url, 'POST', LEADS, { key: keyH, body: directPost() });
    expect([posted.status, posted.body.code]).toEqual([200, 'TEST_LEAD_HELD']);
    made.directLeadH = posted.body.svc_lead_id;

    state = await StoredState.open(env, { affiliateIds: [ids.affH, ids.affO], offerIds: [ids.offerX, ids.offerY, ids.partnerOffer] });
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
  });

  beforeEach(async () => {
    baseline = await state.snapshot();
  });

  afterAll(async () => {
    if (process.env.HOSTILE_STATS)
      console.log(
        [...seen]
          .sort()
          .map(([k, n]) => `${String(n).padStart(5)}  ${k}`)
          .join('\n'),
      );
    await state?.close();
    await db?.end();
    await stopAppsAndTopology(env);
  });

  const search = () => searchBody(ids.cH, ids.affH) as Body;
  const resultSubmit = (): Body => ({
    svc_campaign_id: ids.cH,
    svc_affiliate_id: ids.affH,
    svc_result_id: made.resultH,
    search_lead_id: made.searchH,
    tcpa_consent: true,
    consent_button_label: 'Request info',
    svc_is_test_lead: true,
    program_id: 'gen',
    hs_grad_year: '2013',
  });
  const directPost = (): Body => {
    const { lead, tracking } = search();
    return {
      svc_campaign_id: ids.cH,
      svc_affiliate_id: ids.affH,
      svc_offer_id: ids.offerX,
      lead,
      tracking,
      tcpa_consent: true,
      svc_is_test_lead: true,
      program_id: 'gen',
      hs_grad_year: '2013',
    };
  };
  const dupeCheck = (): Body => ({ email: 'ada@example.com' });

  /** Every table and queue as it was when the test began. */
  async function expectNothingStored(context: string): Promise<void> {
    const now = await state.snapshot();
    if (JSON.stringify(now) !== JSON.stringify(baseline)) {
      throw new Error(
        `a refused request left something behind (${context}): before ${JSON.stringify(baseline)}, after ${JSON.stringify(now)}`,
      );
    }
  }

  /** HOSTILE_STATS=1 prints, per test, how often each answer came: what the generators reached. */
  const seen = new Map<string, number>();
  const count = (res: AnswerLike) => {
    const key = `${expect.getState().currentTestName?.slice(33, 90)} | ${res.status} ${(res.body as { code?: string } | undefined)?.code ?? ''}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  };

  /** The answer is the envelope, and the refusal one of the breaks must produce (several breaks: the one checked first). */
  function expectRefusal(res: AnswerLike, refusals: Refusal[], context: string, method = 'POST'): void {
    count(res);
    expectErrorEnvelope(res, method);
    if (method === 'HEAD') {
      // No body to read: the status alone.
      if (!refusals.some((r) => r.status === res.status))
        throw new Error(`${context}: HEAD answered ${res.status}, expected one of ${JSON.stringify(refusals)}`);
      return;
    }
    const body = res.body as { code: string; field?: string };
    const got = { status: res.status, code: body.code, field: body.field };
    const ok = refusals.some(
      (r) => r.status === got.status && r.code === got.code && (r.fields === undefined || r.fields.includes(got.field as string)),
    );
    if (!ok)
      throw new Error(
        `${context}: answered ${JSON.stringify(got)}, expected one of ${JSON.stringify(refusals)}\n${res.text.slice(0, 400)}`,
      );
  }

  const describeBreaks = (breaks: Break[]) => breaks.map((b) => b.name).join(' + ');
  const sendJson = (path: string, body: unknown, key = keyH) => call(gateway.url, 'POST', path, { key, body });
  const sendBytes = (path: string, bytes: Uint8Array, contentType = 'application/json', key = keyH) =>
    call(gateway.url, 'POST', path, { key, rawBody: bytes, headers: { 'Content-Type': contentType } });

  // ---------------------------------------------------------------- bodies

  it('search: broken bodies (wrong types, missing or unknown ids, bad lead and tracking values, unstorable text) are refused naming the field; nothing stored', async () => {
    const breaks = someBreaks([
      uuidFieldBreak('svc_campaign_id', [
        ['unknown', fc.uuid(), { status: 400, code: 'NOT_FOUND', fields: ['svc_campaign_id'] }],
        ["another affiliate's", fc.constant(ids.cO), { status: 400, code: 'NOT_FOUND', fields: ['svc_campaign_id'] }],
        ['paused', fc.constant(ids.cHPaused), { status: 400, code: 'NOT_FOUND', fields: ['svc_campaign_id'] }],
      ]),
      uuidFieldBreak('svc_affiliate_id', [
        ["not the key's", fc.oneof(fc.uuid(), fc.constant(ids.affO)), { status: 403, code: 'FORBIDDEN' }],
      ]),
      missingBreak('lead'),
      leadBreak(),
      trackingBreak(),
      optionalFieldBreak('tcpa_consent', 'boolean'),
      optionalFieldBreak('svc_is_test_lead', 'boolean'),
      optionalFieldBreak('form_cert_url', 'string', 2048),
      optionalFieldBreak('universal_lead_cert', 'string', 2048),
      unstorableExtraBreak,
    ]);
    await fc.assert(
      fc.asyncProperty(breaks, extras(), fc.dictionary(extraKey, safeJson, { maxKeys: 2 }), async (bs, extra, leadExtra) => {
        const body = { ...search(), ...extra };
        Object.assign(body.lead, leadExtra);
        for (const b of bs) b.apply(body);
        const res = await sendJson(SEARCH, body);
        expectRefusal(
          answerOf(res),
          bs.flatMap((b) => b.refusals),
          describeBreaks(bs),
        );
        await expectNothingStored(describeBreaks(bs));
      }),
      settings(250),
    );
  });

  it('leads: broken result submits and direct posts are refused at the front door naming the field; nothing stored, nothing published', async () => {
    const forbidden: Refusal = { status: 403, code: 'FORBIDDEN' };
    const notFound = (field?: string): Refusal => ({ status: 404, code: 'NOT_FOUND', ...(field ? { fields: [field] } : {}) });
    const invalid = (field: string): Refusal[] => [{ status: 400, code: 'INVALID_FIELD', fields: [field] }];
    const common = (resultMode: boolean) => [
      uuidFieldBreak('svc_campaign_id', [
        ['unknown', fc.uuid(), forbidden],
        ["another affiliate's", fc.constant(ids.cO), forbidden],
        ...(resultMode ? [["not the result's", fc.constant(ids.cH2), forbidden] as [string, fc.Arbitrary<string>, Refusal]] : []),
      ]),
      uuidFieldBreak('svc_affiliate_id', [["not the key's", fc.oneof(fc.uuid(), fc.constant(ids.affO)), forbidden]]),
      optionalFieldBreak('tcpa_consent', 'boolean'),
      optionalFieldBreak('svc_is_test_lead', 'boolean'),
      optionalFieldBreak('program_id', 'string', 200),
      optionalFieldBreak('consent_button_label', 'string', 500),
      optionalFieldBreak('form_cert_url', 'string', 2048),
      unstorableExtraBreak,
    ];
    const resultBreaks = someBreaks([
      ...common(true),
      fc.oneof(
        missingBreak('svc_result_id', { status: 400, code: 'REQUIRED_FIELD_MISSING', fields: ['svc_result_id or svc_offer_id'] }),
        notString.map((v) =>
          breakOf('svc_result_id of the wrong type', 'svc_result_id', (b) => (b.svc_result_id = v), invalid('svc_result_id')),
        ),
        fc
          .integer({ min: 101, max: 400 })
          .map((n) =>
            breakOf(
              'svc_result_id over 100 characters',
              'svc_result_id',
              (b) => (b.svc_result_id = 'r'.repeat(n)),
              invalid('svc_result_id'),
            ),
          ),
        unstorableText.map((v) =>
          breakOf('svc_result_id unstorable', 'svc_result_id', (b) => (b.svc_result_id = v), invalid('svc_result_id')),
        ),
        fc
          .oneof(fc.uuid(), text(100), fc.constant(made.resultO), fc.constant(made.searchH))
          .map((v) => breakOf('svc_result_id unknown to the key', 'svc_result_id', (b) => (b.svc_result_id = v), [notFound()])),
      ),
      uuidFieldBreak('search_lead_id', [["not the result's search", fc.oneof(fc.uuid(), fc.constant(made.searchO)), notFound()]], {
        status: 409,
        code: 'MALFORMED_REQUEST',
        fields: ['search_lead_id'],
      }),
      leadBreak(),
    ]);
    const directBreaks = someBreaks([
      ...common(false),
      uuidFieldBreak(
        'svc_offer_id',
        [
          ['unknown', fc.uuid(), notFound('svc_offer_id')],
          ['a partner offer', fc.constant(ids.partnerOffer), { status: 400, code: 'INVALID_FIELD', fields: ['svc_offer_id'] }],
          ['not on the campaign', fc.constant(ids.offerY), forbidden],
        ],
        { status: 400, code: 'REQUIRED_FIELD_MISSING', fields: ['svc_offer_id', 'svc_result_id or svc_offer_id'] },
      ),
      missingBreak('lead'),
      leadBreak(),
      trackingBreak(),
      fc.oneof(
        fc
          .oneof(notString, notUuid, unstorableText)
          .map((v) => breakOf('svc_lead_id not a UUID', 'svc_lead_id', (b) => (b.svc_lead_id = v), invalid('svc_lead_id'))),
        fc
          .oneof(fc.uuid(), fc.constant(made.submitLeadH), fc.constant(made.searchH))
          .map((v) =>
            breakOf('svc_lead_id not a direct post of the key', 'svc_lead_id', (b) => (b.svc_lead_id = v), [notFound('svc_lead_id')]),
          ),
      ),
    ]);
    const mode = fc.oneof(fc.tuple(fc.constant('result submit'), resultBreaks), fc.tuple(fc.constant('direct post'), directBreaks));
    await fc.assert(
      fc.asyncProperty(mode, extras(), async ([which, bs], answers) => {
        const body = { ...(which === 'result submit' ? resultSubmit() : directPost()), ...answers };
        for (const b of bs) b.apply(body);
        const res = await sendJson(LEADS, body);
        expectRefusal(
          answerOf(res),
          bs.flatMap((b) => b.refusals),
          `${which}: ${describeBreaks(bs)}`,
        );
        await expectNothingStored(`${which}: ${describeBreaks(bs)}`);
      }),
      settings(300),
    );
  });

  it('dupe-check: any mix of raw, hashed, malformed and mistyped fields answers the decision or the refusal it must; nothing stored', async () => {
    /** A generated field: its value, whether it makes the request usable, and whether it holds unstorable text. */
    type Field = { value: Json; usable: 'yes' | 'no' | 'maybe'; unstorable: boolean } | undefined;
    const field = (usable: fc.Arbitrary<string>, whenValid: 'yes' | 'maybe' = 'yes'): fc.Arbitrary<Field> =>
      fc.oneof(
        { arbitrary: fc.constant<Field>(undefined), weight: 8 },
        { arbitrary: usable.map((value): Field => ({ value, usable: whenValid, unstorable: false })), weight: 4 },
        {
          arbitrary: fc.oneof(notString, fc.constantFrom('', '   ')).map((value): Field => ({ value, usable: 'no', unstorable: false })),
          weight: 2,
        },
        { arbitrary: unstorableText.map((value): Field => ({ value, usable: 'no', unstorable: true })), weight: 1 },
      );
    const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
    const model = fc.record({
      fields: fc.record({
        email: field(fc.stringMatching(/^[a-z0-9]{1,12}$/).map((l) => `${l}@example.com`)),
        phone: field(fc.integer({ min: 2_000_000, max: 9_999_999 }).map((n) => `(512) ${String(n).slice(0, 3)}-${String(n).slice(3)}`)),
        first_name: field(text(40, 1).filter((t) => t.trim() !== '')),
        address: field(text(60, 1).filter((t) => t.trim() !== '')),
        // Usable or not depending on what they normalize to (a last name of emoji makes no key): either answer is right.
        last_name: field(
          text(30, 1).filter((t) => t.trim() !== ''),
          'maybe',
        ),
        zip: field(fc.stringMatching(/^\d{5}(-\d{4})?$/), 'maybe'),
      }),
      hashed: fc.oneof(
        { arbitrary: fc.constant<{ value: Json; valid: boolean } | undefined>(undefined), weight: 3 },
        fc
          .dictionary(fc.constantFrom('email', 'phone', 'zip', 'ip'), hex, { minKeys: 1, maxKeys: 3 })
          .map((value) => ({ value, valid: true })),
        fc.dictionary(extraKey, safeJson, { maxKeys: 2 }).map((value) => ({ value, valid: true })),
        fc
          .tuple(
            fc.constantFrom('email', 'phone', 'last_name', 'dob'),
            fc.oneof(
              notString,
              text(63),
              hex.map((h) => `${h}0`),
            ),
          )
          .map(([k, v]) => ({ value: { [k]: v } as Json, valid: false })),
        fc.oneof(notObject, fc.constant(null)).map((value) => ({ value, valid: false })),
      ),
      offerId: fc.oneof(
        { arbitrary: fc.constant<{ value: Json; kind: 'mine' | 'foreign' | 'invalid' } | undefined>(undefined), weight: 3 },
        fc.constant({ value: ids.offerX as Json, kind: 'mine' as const }),
        fc
          .oneof(fc.uuid(), fc.constant(ids.offerY), fc.constant(ids.partnerOffer))
          .map((value) => ({ value: value as Json, kind: 'foreign' as const })),
        fc.oneof(notUuid, notString, fc.constant(null)).map((value) => ({ value: value as Json, kind: 'invalid' as const })),
      ),
      extra: extras(2),
    });
    await fc.assert(
      fc.asyncProperty(model, async (m) => {
        const body: Body = { ...m.extra };
        const given = Object.entries(m.fields).filter(([, f]) => f !== undefined) as Array<[string, NonNullable<Field>]>;
        for (const [k, f] of given) body[k] = f.value;
        if (m.hashed) body.hashed = m.hashed.value;
        if (m.offerId) body.offer_id = m.offerId.value;
        const res = await sendJson(DUPE, body);
        const context = JSON.stringify(body).slice(0, 300);
        // The gateway's order: unstorable text, offer_id, hashed, a usable field, then the offer's owner.
        const hashedKeys = m.hashed?.valid
          ? Object.keys(m.hashed.value as object).filter((k) => ['email', 'phone', 'zip', 'ip'].includes(k))
          : [];
        const usable = given.some(([, f]) => f.usable === 'yes') || hashedKeys.length > 0;
        const maybe = given.some(([, f]) => f.usable === 'maybe');
        const unusableAnswer: Refusal = { status: 400, code: 'MALFORMED_REQUEST' };
        if (given.some(([, f]) => f.unstorable)) {
          expectRefusal(
            answerOf(res),
            [{ status: 400, code: 'INVALID_FIELD', fields: given.filter(([, f]) => f.unstorable).map(([k]) => k) }],
            context,
          );
        } else if (m.offerId?.kind === 'invalid') {
          expectRefusal(answerOf(res), [{ status: 400, code: 'INVALID_FIELD', fields: ['offer_id'] }], context);
        } else if (m.hashed && !m.hashed.valid) {
          expectRefusal(
            answerOf(res),
            [{ status: 400, code: 'INVALID_FIELD', fields: ['hashed', 'hashed.email', 'hashed.phone', 'hashed.last_name', 'hashed.dob'] }],
            context,
          );
        } else if (!usable && (!maybe || (res.status === 400 && res.body?.code === 'MALFORMED_REQUEST'))) {
          expectRefusal(answerOf(res), [unusableAnswer], context);
        } else if (m.offerId?.kind === 'foreign') {
          expectRefusal(answerOf(res), [{ status: 403, code: 'FORBIDDEN' }], context);
        } else {
          count(answerOf(res));
          expect([context, res.status, res.body]).toEqual([
            context,
            200,
            { code: 'OK', status: 'accepted', reason: 'OK', success: true, duplicate_likely: expect.any(Boolean), retryable: false },
          ]);
        }
        await expectNothingStored(context);
      }),
      settings(200),
    );
  });

  /** After an opt-out answered 200: exactly one request stored, each new suppression audited, nothing else written or queued. */
  async function expectOneOptOutStored(context: string): Promise<void> {
    const now = await state.snapshot();
    const grew = Object.fromEntries(
      Object.keys(now)
        .map((k) => [k, now[k] - baseline[k]])
        .filter(([, d]) => d !== 0),
    );
    const { opt_outs, suppressions = 0, suppression_audit = 0, ...others } = grew;
    expect([context, opt_outs, others, suppression_audit]).toEqual([context, 1, {}, suppressions]);
    expect(suppressions).toBeLessThanOrEqual(2);
    baseline = now;
  }

  it('opt-outs: any mix of raw, hashed, malformed and mistyped fields is recorded once with the one answer, or refused as it must with nothing stored', async () => {
    type Field = { value: Json; usable: 'yes' | 'no'; unstorable: boolean } | undefined;
    const field = (usable: fc.Arbitrary<string>): fc.Arbitrary<Field> =>
      fc.oneof(
        { arbitrary: fc.constant<Field>(undefined), weight: 6 },
        { arbitrary: usable.map((value): Field => ({ value, usable: 'yes', unstorable: false })), weight: 3 },
        {
          arbitrary: fc
            .oneof(notString, fc.constantFrom('', '   ', 'no-at-sign', '555-01'))
            .map((value): Field => ({ value, usable: 'no', unstorable: false })),
          weight: 3,
        },
        // Refused at the front door like on every endpoint, naming the field (never stored raw here anyway).
        { arbitrary: unstorableText.map((value): Field => ({ value, usable: 'no', unstorable: true })), weight: 1 },
      );
    const hex = fc.stringMatching(/^[0-9a-fA-F]{64}$/);
    // People no other file uses (a domain of this run's, an area code no fixture has): an opt-out suppresses them for every file on the database.
    const domain = `${uniqueSuffix()}.hostile.example.com`;
    const model = fc.record({
      email: field(fc.stringMatching(/^[a-z0-9]{1,12}$/).map((l) => `${l}@${domain}`)),
      phone: field(fc.integer({ min: 2_000_000, max: 9_999_999 }).map((n) => `(417) ${String(n).slice(0, 3)}-${String(n).slice(3)}`)),
      hashed: fc.oneof(
        { arbitrary: fc.constant<{ value: Json; valid: boolean; keys: number } | undefined>(undefined), weight: 3 },
        fc
          .dictionary(fc.constantFrom('email', 'phone'), hex, { minKeys: 1, maxKeys: 2 })
          .map((value) => ({ value, valid: true, keys: Object.keys(value).length })),
        fc.dictionary(extraKey, safeJson, { maxKeys: 2 }).map((value) => ({ value, valid: true, keys: 0 })),
        fc
          .tuple(
            fc.constantFrom('email', 'phone'),
            fc.oneof(
              notString,
              text(63),
              hex.map((h) => `${h}0`),
            ),
          )
          .map(([k, v]) => ({ value: { [k]: v } as Json, valid: false, keys: 0 })),
        fc.oneof(notObject, fc.constant(null)).map((value) => ({ value, valid: false, keys: 0 })),
      ),
      extra: extras(2),
    });
    await fc.assert(
      fc.asyncProperty(model, async (m) => {
        const body: Body = { ...m.extra };
        if (m.email) body.email = m.email.value;
        if (m.phone) body.phone = m.phone.value;
        if (m.hashed) body.hashed = m.hashed.value;
        const res = await sendJson(OPT_OUT, body);
        const context = JSON.stringify(body).slice(0, 300);
        const given = (['email', 'phone'] as const).flatMap((k) => (m[k] ? [[k, m[k]!] as const] : []));
        const usable = given.some(([, f]) => f.usable === 'yes') || (m.hashed?.valid === true && m.hashed.keys > 0);
        if (given.some(([, f]) => f.unstorable)) {
          expectRefusal(
            answerOf(res),
            [{ status: 400, code: 'INVALID_FIELD', fields: given.filter(([, f]) => f.unstorable).map(([k]) => k) }],
            context,
          );
        } else if (m.hashed && !m.hashed.valid) {
          expectRefusal(
            answerOf(res),
            [{ status: 400, code: 'INVALID_FIELD', fields: ['hashed', 'hashed.email', 'hashed.phone'] }],
            context,
          );
        } else if (usable) {
          count(answerOf(res));
          expect([context, res.status, res.body]).toEqual([
            context,
            200,
            { code: 'OK', status: 'accepted', reason: 'OK', success: true, retryable: false, opt_out_id: expect.any(String) },
          ]);
          return expectOneOptOutStored(context);
        } else {
          expectRefusal(answerOf(res), [{ status: 400, code: 'MALFORMED_REQUEST' }], context);
        }
        await expectNothingStored(context);
      }),
      settings(150),
    );
  });

  it('every POST endpoint: bodies that are no request at all (truncated, not an object, too deep, prototype pollution, not UTF-8, empty) are 400 MALFORMED_REQUEST (413 over the limit); nothing stored', async () => {
    const endpoints = [
      { path: SEARCH, json: JSON.stringify(search()), limit: BODY_LIMIT },
      { path: LEADS, json: JSON.stringify(resultSubmit()), limit: BODY_LIMIT },
      { path: LEADS, json: JSON.stringify(directPost()), limit: BODY_LIMIT },
      { path: DUPE, json: JSON.stringify(dupeCheck()), limit: DUPE_LIMIT },
      { path: OPT_OUT, json: JSON.stringify(dupeCheck()), limit: OPT_OUT_LIMIT },
    ];
    const arb = fc.constantFrom(...endpoints).chain((e) => wholeBodyBreak(e.json).map((b) => ({ e, b })));
    await fc.assert(
      fc.asyncProperty(arb, async ({ e, b }) => {
        const res = await sendBytes(e.path, b.bytes);
        const refusal = b.bytes.length > e.limit ? { status: 413, code: 'MALFORMED_REQUEST' } : b.refusal;
        expectRefusal(answerOf(res), [refusal], `${e.path} ${b.name}`);
        await expectNothingStored(`${e.path} ${b.name}`);
      }),
      settings(150),
    );
  });

  it('every POST endpoint: any JSON at all, with any Unicode (NUL and lone surrogates included) and any keys (__proto__ included), never answers 5xx and stores nothing', async () => {
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 5, stringUnit: 'binary' }),
      fc.dictionary(fc.string({ unit: 'binary', maxLength: 20 }), fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }), { maxKeys: 8 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(SEARCH, LEADS, DUPE, OPT_OUT), value, async (path, v) => {
        const json = JSON.stringify(v) ?? 'null';
        const res = await sendBytes(path, Buffer.from(json, 'utf8'));
        const context = `${path} ${json.slice(0, 300)}`;
        if (path === OPT_OUT && res.status === 200) {
          count(answerOf(res));
          expect([context, res.body]).toEqual([
            context,
            { code: 'OK', status: 'accepted', reason: 'OK', success: true, retryable: false, opt_out_id: expect.any(String) },
          ]);
          return expectOneOptOutStored(context);
        }
        if (path === DUPE && res.status === 200) {
          count(answerOf(res));
          expect([context, res.body]).toEqual([
            context,
            { code: 'OK', status: 'accepted', reason: 'OK', success: true, duplicate_likely: expect.any(Boolean), retryable: false },
          ]);
        } else {
          expectRefusal(
            answerOf(res),
            [
              { status: 400, code: 'MALFORMED_REQUEST' },
              { status: 400, code: 'INVALID_FIELD' },
              { status: 400, code: 'REQUIRED_FIELD_MISSING' },
              { status: 403, code: 'FORBIDDEN' },
              { status: 409, code: 'MALFORMED_REQUEST' },
              { status: 413, code: 'MALFORMED_REQUEST' },
            ],
            context,
          );
        }
        await expectNothingStored(context);
      }),
      settings(200),
    );
  });

  it('sizes around the body limits (256 KB, 16 KB on dupe-check), in multi-byte text, and depth around the 32-level limit: 413 above, the body read below', async () => {
    const cases = fc.record({
      endpoint: fc.constantFrom<{ path: string; limit: number; body: () => Body; refusal: Refusal }>(
        {
          path: SEARCH,
          limit: BODY_LIMIT,
          body: () => ({ ...search(), svc_campaign_id: undefined }),
          refusal: { status: 400, code: 'REQUIRED_FIELD_MISSING', fields: ['svc_campaign_id'] },
        },
        {
          path: LEADS,
          limit: BODY_LIMIT,
          body: () => ({ ...directPost(), svc_affiliate_id: undefined }),
          refusal: { status: 400, code: 'REQUIRED_FIELD_MISSING', fields: ['svc_affiliate_id'] },
        },
        { path: DUPE, limit: DUPE_LIMIT, body: () => ({ email: '' }), refusal: { status: 400, code: 'MALFORMED_REQUEST' } },
        { path: OPT_OUT, limit: OPT_OUT_LIMIT, body: () => ({ email: '' }), refusal: { status: 400, code: 'MALFORMED_REQUEST' } },
      ),
      delta: fc.integer({ min: -2048, max: 2048 }),
      unit: fc.constantFrom('x', 'é', '€', '😀', '\u200b'),
      depth: fc.option(fc.integer({ min: 26, max: 40 }), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(cases, async ({ endpoint, delta, unit, depth }) => {
        const body: Body = endpoint.body();
        if (depth !== undefined) body.x_deep = JSON.parse('['.repeat(depth - 1) + ']'.repeat(depth - 1));
        const skeleton = Buffer.byteLength(JSON.stringify({ ...body, x_pad: '' }));
        const unitBytes = Buffer.byteLength(unit);
        const target = endpoint.limit + delta;
        body.x_pad = unit.repeat(Math.max(0, Math.floor((target - skeleton) / unitBytes)));
        const bytes = Buffer.from(JSON.stringify(body));
        const res = await sendBytes(endpoint.path, bytes);
        const context = `${endpoint.path}: ${bytes.length} bytes (limit ${endpoint.limit}), unit ${JSON.stringify(unit)}, depth ${depth}`;
        const refusal: Refusal =
          bytes.length > endpoint.limit
            ? { status: 413, code: 'MALFORMED_REQUEST' }
            : depth !== undefined && depth > 32
              ? { status: 400, code: 'MALFORMED_REQUEST' }
              : endpoint.refusal;
        expectRefusal(answerOf(res), [refusal], context);
        await expectNothingStored(context);
      }),
      settings(60),
    );
  });

  // ---------------------------------------------------------------- paths, methods, headers

  it('path ids: anything in results/{svc_lead_id} and leads/{id} (Unicode, bad percent-encoding, very long, traversal, ids of other things) is 404, or 400 for a URL that cannot be decoded', async () => {
    const percentBytes = fc
      .uint8Array({ minLength: 1, maxLength: 24 })
      .map((a) => Array.from(a, (b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join(''));
    const segment = fc.oneof(
      text(120, 1).map((s) => encodeURIComponent(s)),
      percentBytes,
      fc.constantFrom(
        '%',
        '%z',
        '%zz',
        '%E0%A4%A',
        '%C0%AF',
        '%00',
        '..',
        '%2e%2e',
        '..%2F..%2Fsearch',
        '.',
        '%2F',
        '%3F',
        '%23',
        'null',
        'undefined',
        '__proto__',
        'constructor',
      ),
      fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{1,60}$/),
      fc.integer({ min: 90, max: 9000 }).map((n) => 'a'.repeat(n)),
      fc.uuid().map((u) => u.toUpperCase()),
      fc.uuid().map((u) => `${u}%20`),
    );
    const otherIds = (kind: 'results' | 'leads') =>
      fc.constantFrom(
        ...(kind === 'results' ? [made.searchO, made.submitLeadH, made.directLeadH] : [made.searchH, made.searchO]),
        made.resultH,
        made.resultO,
        ids.cH,
        ids.offerX,
        ids.affH,
        randomUUID(),
      );
    const arb = fc.constantFrom<'results' | 'leads'>('results', 'leads').chain((kind) =>
      fc.record({
        kind: fc.constant(kind),
        id: fc.oneof(segment, otherIds(kind)),
        method: fc.constantFrom('GET', 'HEAD'),
        query: fc.constantFrom('', '?x=%zz&__proto__[a]=1', '?svc_lead_id=1'),
      }),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ({ kind, id: segmentText, method, query }) => {
        const path = `/api/v1/engine/${kind}/${segmentText}${query}`;
        const res = await call(gateway.url, method, path, { key: keyH });
        expectRefusal(
          answerOf(res),
          [
            { status: 404, code: 'NOT_FOUND' },
            { status: 400, code: 'MALFORMED_REQUEST' },
          ],
          `${method} ${path.slice(0, 200)}`,
          method,
        );
        await expectNothingStored(path.slice(0, 200));
      }),
      settings(200),
    );
  });

  it('wrong methods on every route: 405 MALFORMED_REQUEST with Allow, with or without a key or a body; unknown methods 400', async () => {
    const routes: Array<[string, string]> = [
      [SEARCH, 'POST'],
      [LEADS, 'POST'],
      [DUPE, 'POST'],
      [OPT_OUT, 'POST'],
      [`/api/v1/engine/results/${randomUUID()}`, 'GET'],
      [`/api/v1/engine/leads/${randomUUID()}`, 'GET'],
    ];
    const methods = [
      'GET',
      'HEAD',
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
      'OPTIONS',
      'PROPFIND',
      'SEARCH',
      'LOCK',
      'PURGE',
      'REPORT',
      'TRACE',
      'CONNECT',
      'FOO',
      'get',
    ];
    const arb = fc.record({
      route: fc.constantFrom(...routes),
      method: fc.constantFrom(...methods),
      key: fc.boolean(),
      body: fc.option(safeJson, { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ route: [path, allowed], method, key, body }) => {
        fc.pre(method !== allowed && !(method === 'HEAD' && allowed === 'GET'));
        const payload = body === undefined ? '' : JSON.stringify(body);
        const request =
          `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${key ? `Authorization: Bearer ${keyH}\r\n` : ''}` +
          `${payload ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n` : ''}Connection: close\r\n\r\n${payload}`;
        const res = await rawRequest(gateway.port, request);
        const context = `${method} ${path} key=${key} body=${payload.slice(0, 80)}`;
        if (['FOO', 'get'].includes(method)) {
          // Node's HTTP parser refuses a method it does not know (or in lower case) before any route is looked at.
          return expectRefusal(res, [{ status: 400, code: 'MALFORMED_REQUEST' }], context);
        }
        expectRefusal(res, [{ status: 405, code: 'MALFORMED_REQUEST' }], context, method);
        expect([context, res.headers.allow]).toEqual([context, allowed]);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }),
      settings(120),
    );
    await expectNothingStored('wrong methods');
  });

  it('Content-Type: anything but application/json (UTF-8) is 415; a JSON body is read only under it', async () => {
    const contentType = fc.oneof(
      fc.constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        'application/vnd.api+json',
        'application/jsonx',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        'application/json;charset="iso-8859-1"',
        'APPLICATION/JSON',
        'application/json; charset=UTF-8',
        'application/json;charset=utf8',
        'application/json; foo=bar',
        ' application/json ',
        'application/*',
        '*/*',
        'json',
        ';',
        '',
        'application/json, text/plain',
      ),
      fc.string({ unit: 'grapheme-ascii', maxLength: 60 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(SEARCH, LEADS, DUPE, OPT_OUT), contentType, async (path, type) => {
        const byKey = path === DUPE || path === OPT_OUT;
        const body = byKey ? { email: '' } : { ...search(), svc_affiliate_id: undefined, svc_campaign_id: undefined };
        const res = await sendBytes(path, Buffer.from(JSON.stringify(body)), type);
        const context = `${path} Content-Type: ${JSON.stringify(type)}`;
        const media = type.split(';')[0].trim().toLowerCase();
        const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(type)?.[1]?.toLowerCase();
        const mustBe415 = media !== 'application/json' || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8');
        const read: Refusal = byKey ? { status: 400, code: 'MALFORMED_REQUEST' } : { status: 400, code: 'REQUIRED_FIELD_MISSING' };
        expectRefusal(
          answerOf(res),
          mustBe415 ? [{ status: 415, code: 'MALFORMED_REQUEST' }] : [read, { status: 415, code: 'MALFORMED_REQUEST' }],
          context,
        );
        await expectNothingStored(context);
      }),
      settings(100),
    );
  });

  it('credentials: any Authorization or X-API-Key value that is not a key is 401 AUTH_INVALID; two different keys on one request are refused even when one is valid', async () => {
    const headerValue = fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 100 }),
      // Any byte but CR and LF (Node refuses control bytes in a header value: 400 before any route).
      fc.uint8Array({ maxLength: 100 }).map((a) =>
        Buffer.from(a)
          .toString('latin1')
          .replace(/[\r\n]/g, ''),
      ),
      fc.integer({ min: 200, max: 12_000 }).map((n) => `Bearer ${'k'.repeat(n)}`),
      fc.constantFrom(
        '',
        'Bearer',
        'Bearer ',
        'Basic dXNlcjpwYXNz',
        'Token x',
        'Bearer lr_',
        'Bearer a b',
        'Bearer\tx',
        `Bearer ${keyH}x`,
        `Bearer x${keyH}`,
      ),
    );
    const arb = fc.record({
      path: fc.constantFrom(SEARCH, LEADS, DUPE, OPT_OUT, `/api/v1/engine/results/${randomUUID()}`, `/api/v1/engine/leads/${randomUUID()}`),
      header: fc.constantFrom('Authorization', 'X-API-Key', 'authorization', 'X-Api-Key'),
      value: headerValue,
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ path, header, value }) => {
        const method = path.includes('/results/') || /\/leads\/./.test(path) ? 'GET' : 'POST';
        const payload = method === 'POST' ? '{}' : '';
        const request =
          `${method} ${path} HTTP/1.1\r\nHost: x\r\n${header}: ${value}\r\n` +
          `${payload ? `Content-Type: application/json\r\nContent-Length: ${payload.length}\r\n` : ''}Connection: close\r\n\r\n${payload}`;
        const res = await rawRequest(gateway.port, Buffer.from(request, 'latin1'));
        const context = `${method} ${path} ${header}: ${JSON.stringify(value.slice(0, 60))}`;
        // eslint-disable-next-line no-control-regex -- the control characters an HTTP parser refuses in a header value are what this test sends.
        const parserRefuses = /[\x00-\x08\x0a-\x1f\x7f]/.test(value);
        expectRefusal(
          res,
          parserRefuses ? [{ status: 400, code: 'MALFORMED_REQUEST' }] : [{ status: 401, code: 'AUTH_INVALID' }],
          context,
          method,
        );
      }),
      settings(150),
    );
    // Two different keys, the valid one first or second, in two headers of a kind or one of each: never let through.
    const other = keyO;
    const pairs: Array<[string, string]> = [
      [`Authorization: Bearer ${keyH}`, 'Authorization: Bearer lr_forged'],
      ['Authorization: Bearer lr_forged', `Authorization: Bearer ${keyH}`],
      [`X-API-Key: ${keyH}`, 'X-API-Key: lr_forged'],
      [`Authorization: Bearer ${keyH}`, `X-API-Key: ${other}`],
      [`X-API-Key: ${other}`, `Authorization: Bearer ${keyH}`],
    ];
    for (const [first, second] of pairs) {
      const res = await rawRequest(
        gateway.port,
        `GET /api/v1/engine/results/${made.searchH} HTTP/1.1\r\nHost: x\r\n${first}\r\n${second}\r\nConnection: close\r\n\r\n`,
      );
      expectRefusal(res, [{ status: 401, code: 'AUTH_INVALID' }], `${first} + ${second}`, 'GET');
      expect(res.text).not.toContain(made.resultH);
    }
    // The same key twice is one key.
    const same = await rawRequest(
      gateway.port,
      `GET /api/v1/engine/results/${made.searchH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${keyH}\r\nX-API-Key: ${keyH}\r\nConnection: close\r\n\r\n`,
    );
    expect([same.status, (same.body as { svc_lead_id?: string }).svc_lead_id]).toEqual([200, made.searchH]);
    await expectNothingStored('credentials');
  });

  it('HTTP the parser refuses (control bytes in headers, headers over 16 KB, bad request lines, conflicting lengths): the envelope, never a bare socket close', async () => {
    const controlByte = fc
      .integer({ min: 0, max: 31 })
      .filter((b) => b !== 9)
      .map((b) => String.fromCharCode(b));
    const request = fc.oneof(
      fc
        .tuple(fc.constantFrom('X-API-Key', 'Content-Type', 'X-Request-Id', 'Accept'), text(10), controlByte, text(10))
        .map(
          ([h, a, c, b]) =>
            [
              `control byte in ${h}`,
              `GET /api/v1/engine/results/${randomUUID()} HTTP/1.1\r\nHost: x\r\n${h}: ${a}${c}${b}\r\nConnection: close\r\n\r\n`,
              [400, 401, 404],
            ] as const,
        ),
      fc
        .tuple(controlByte, text(5))
        .map(
          ([c, t]) =>
            [
              `control byte in a header name`,
              `GET /api/v1/engine/results/x HTTP/1.1\r\nHost: x\r\nX-${c}${t}: 1\r\nConnection: close\r\n\r\n`,
              [400],
            ] as const,
        ),
      fc
        .integer({ min: 17, max: 64 })
        .map(
          (kb) =>
            [
              `a ${kb} KB header`,
              `GET /api/v1/engine/results/x HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(kb * 1024)}\r\nConnection: close\r\n\r\n`,
              [431],
            ] as const,
        ),
      fc
        .integer({ min: 17, max: 64 })
        .map(
          (kb) =>
            [
              `a ${kb} KB URL`,
              `GET /api/v1/engine/results/${'u'.repeat(kb * 1024)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
              [431],
            ] as const,
        ),
      fc
        .string({ unit: 'binary-ascii', minLength: 1, maxLength: 40 })
        .filter((s) => !/^[A-Z]+ \//.test(s))
        .map((line) => [`request line ${JSON.stringify(line)}`, `${line.replace(/\r?\n/g, ' ')}\r\n\r\n`, [400]] as const),
      fc.constantFrom(
        [
          'two different Content-Lengths',
          `POST ${SEARCH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\nConnection: close\r\n\r\n{}`,
          [400],
        ] as const,
        [
          'Content-Length and chunked',
          `POST ${SEARCH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
          [400],
        ] as const,
        [
          'a Content-Length that is no number',
          `POST ${SEARCH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1e3\r\nConnection: close\r\n\r\n{}`,
          [400],
        ] as const,
        [
          'a bad chunk size',
          `POST ${SEARCH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
          [400],
        ] as const,
        [
          'raw UTF-8 in the path',
          `GET /api/v1/engine/results/\u00e9\u{1F600} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
          [400],
        ] as const,
        ['a bad percent-encoding', `GET /api/v1/engine/results/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, [400]] as const,
      ),
    );
    await fc.assert(
      fc.asyncProperty(request, async ([name, raw, statuses]) => {
        // eslint-disable-next-line no-control-regex -- a request with a character past Latin-1 is sent as UTF-8; the range starts at NUL on purpose.
        const res = await rawRequest(gateway.port, Buffer.from(raw, /[^\x00-\xff]/.test(raw) ? 'utf8' : 'latin1'));
        const context = `${name}: ${res.statusLine} ${res.text.slice(0, 200)}`;
        expect([context, (statuses as readonly number[]).includes(res.status)]).toEqual([context, true]);
        expectErrorEnvelope(res);
      }),
      settings(80),
    );
    await expectNothingStored('http parser');
  });

  // ---------------------------------------------------------------- and what must get through

  it('a test direct post with any answers reaches the decision the question rules give (held, or invalid naming the question) in a 200, and is stored once, never delivered or counted', async () => {
    type Choice = { value?: Json; verdict: 'valid' | 'missing' | 'invalid' };
    const v = (value: Json | undefined, verdict: Choice['verdict']): Choice => ({ value, verdict });
    const absent = fc.constant(v(undefined, 'missing'));
    // Valid choices weigh most, so about a third of the posts pass every rule and are held.
    const program = fc.oneof(
      { arbitrary: fc.constantFrom(v('gen', 'valid'), v('msn', 'valid')), weight: 8 },
      { arbitrary: absent, weight: 1 },
      {
        arbitrary: text(30)
          .filter((t) => !['gen', 'msn'].includes(t))
          .map((t) => v(t, 'invalid')),
        weight: 1,
      },
    );
    const hsYear = fc.oneof(
      { arbitrary: fc.constantFrom(v('2012', 'valid'), v(' 2013 ', 'valid'), v(2013, 'valid')), weight: 6 },
      { arbitrary: fc.constantFrom(v(undefined, 'missing'), v(null, 'missing'), v('', 'missing'), v('   ', 'missing')), weight: 1 },
      {
        arbitrary: fc
          .oneof(
            text(10).filter((t) => !['2012', '2013'].includes(t.trim()) && t.trim() !== ''),
            fc.constantFrom<Json>(1999, true, 'twenty13'),
            fc.array(safeJson, { maxLength: 2 }),
            fc.dictionary(extraKey, safeJson, { maxKeys: 2 }),
          )
          .map((x) => v(x, 'invalid')),
        weight: 2,
      },
    );
    const credits = fc.oneof(
      {
        arbitrary: fc.constantFrom(
          v('12', 'valid'),
          v(12, 'valid'),
          v('-3.5', 'valid'),
          v(undefined, 'valid'),
          v(null, 'valid'),
          v('', 'valid'),
        ),
        weight: 6,
      },
      {
        arbitrary: fc
          .oneof(fc.constantFrom<Json>('abc', '1e3', '12 credits', true, '.5'), fc.array(safeJson, { maxLength: 2 }))
          .map((x) => v(x, 'invalid')),
        weight: 1,
      },
    );
    const goal = fc.oneof(
      { arbitrary: fc.option(text(500), { nil: undefined }).map((t) => v(t, 'valid')), weight: 6 },
      {
        arbitrary: fc
          .oneof(
            fc.integer({ min: 501, max: 1500 }).map((n) => 'g'.repeat(n)),
            fc.dictionary(extraKey, safeJson, { maxKeys: 2 }),
          )
          .map((x) => v(x, 'invalid')),
        weight: 1,
      },
    );
    const arb = fc.record({ program, hsYear, credits, goal, extra: extras(2) });
    const before = baseline;
    let posted = 0;
    await fc.assert(
      fc.asyncProperty(arb, async ({ program: p, hsYear: h, credits: c, goal: g, extra }) => {
        const body: Body = { ...directPost(), ...extra, lead: person() };
        delete body.program_id;
        delete body.hs_grad_year;
        for (const [k, choice] of [
          ['program_id', p],
          ['hs_grad_year', h],
          ['credits', c],
          ['goal', g],
        ] as const)
          if (choice.value !== undefined) body[k] = choice.value;
        const res = await sendJson(LEADS, body);
        posted += 1;
        count(answerOf(res));
        // Question rules (affiliate-api.md): the program first (two programs: one must be named), then each question in order.
        const expected =
          p.verdict === 'missing'
            ? ['invalid', 'REQUIRED_FIELD_MISSING', 'program_id']
            : p.verdict === 'invalid'
              ? ['invalid', 'INVALID_FIELD', 'program_id']
              : h.verdict === 'missing'
                ? ['invalid', 'REQUIRED_FIELD_MISSING', 'hs_grad_year']
                : h.verdict === 'invalid'
                  ? ['invalid', 'INVALID_FIELD', 'hs_grad_year']
                  : c.verdict === 'invalid'
                    ? ['invalid', 'INVALID_FIELD', 'credits']
                    : g.verdict === 'invalid'
                      ? ['invalid', 'INVALID_FIELD', 'goal']
                      : ['held', 'TEST_LEAD_HELD', undefined];
        const context = JSON.stringify({
          program: p.value,
          hs: h.value,
          credits: c.value,
          goal: typeof g.value === 'string' ? g.value.length : g.value,
        });
        expect([context, res.status, res.body?.status, res.body?.code, res.body?.field]).toEqual([context, 200, ...expected]);
        expect(res.body).toEqual(expect.objectContaining({ payout: 0, svc_lead_id: expect.any(String), retryable: false }));
        expectNoPrice(res.text);
      }),
      settings(60),
    );
    // One lead (and its consent) per post; a test lead is never sold, never a duplicate key, never sent to a school, never counted against a cap.
    const after = await state.snapshot();
    expect(after).toEqual({
      ...before,
      leads: before.leads + posted,
      consent_evidence: before.consent_evidence + posted,
      processed_messages: after.processed_messages,
    });
  });

  it('well-formed Unicode in free-text lead fields, tracking values and extra properties is accepted and stored as sent (trimmed)', async () => {
    const free = text(200, 1).filter((s) => s.trim() !== '' && s.trim().length <= 200);
    const arb = fc.record({ first: free, last: free, city: free, street: free, subid: text(500), extra: extras(2) });
    let searches = 0;
    await fc.assert(
      fc.asyncProperty(arb, async ({ first, last, city, street, subid, extra }) => {
        const body = search();
        body.lead.personal = { ...body.lead.personal, first_name: first, last_name: last };
        body.lead.address = { ...body.lead.address, city, address_line_1: street };
        body.tracking.subid = subid;
        const res = await sendJson(SEARCH, { ...body, ...extra, svc_is_test_lead: true });
        expect([res.status, res.body?.code, res.text.slice(0, 300)]).toEqual([200, 'OK', expect.any(String)]);
        expectNoPrice(res.text);
        searches += 1;
        const row = (await openedRow(db, 'searches', res.body.svc_lead_id))!;
        expect(row.lead.personal).toEqual(expect.objectContaining({ first_name: first.trim(), last_name: last.trim() }));
        expect(row.lead.address).toEqual(expect.objectContaining({ city: city.trim(), address_line_1: street.trim() }));
        expect(row.tracking.subid).toBe(subid.trim());
      }),
      settings(25),
    );
    expect((await state.snapshot()).searches).toBe(baseline.searches + searches);
  });
});
