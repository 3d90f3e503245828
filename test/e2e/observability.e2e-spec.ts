import { randomInt, randomUUID } from 'node:crypto';
import { AppName, loadConfig } from '../../libs/config/src';
import { AmqpConnection, routeOf } from '../../libs/messaging/src';
import { campaign, ownOffer, partnerOffer } from '../support/catalog-builder';
import { call, HttpAnswer } from '../support/http';
import { RunningApp, startApp, stopAllApps, stopAppsAndTopology } from '../support/app-process';
import { eventually, handledMessages, LogLine, logLines } from '../support/logs';
import { Sample, scrape, total } from '../support/metrics';
import { applyCatalog, issueKey } from '../support/ops';
import { testEnv, uniqueSuffix } from '../support/test-env';

/**
 * Observability end to end, with every app running at LOG_LEVEL=debug:
 * - one correlation id per HTTP request, made by the gateway (the caller's
 *   X-Request-Id or X-Correlation-Id is logged beside it as client_request_id,
 *   never taken for it), follows the work through every message
 *   (search -> checks -> partner-adapter -> partner answer -> orchestrator;
 *   submit -> delivery -> checks -> partner submit) and is on the log lines of
 *   every app that handled it;
 * - canary contact data sent through search, submit, the duplicate pre-check
 *   and error paths (a 400 on a bad email, a rate-limit refusal, a buyer
 *   refusal, a school error, a partner error, a poisoned message) never shows
 *   up in any app's logs, in any common spelling;
 * - /metrics of every app names the catalog's metrics with the counts the flow produced.
 */
describe('observability (e2e)', () => {
  const suffix = uniqueSuffix();
  const env = testEnv(suffix, { LOG_LEVEL: 'debug' });
  const id = () => randomUUID();
  const ids = {
    aff: id(),
    sAccept: id(),
    sReject: id(),
    sError: id(),
    sPartner: id(),
    oAccept: id(),
    oReject: id(),
    oError: id(),
    partnerOk: id(),
    partnerDown: id(),
    pOffer: id(),
    pOfferDown: id(),
    campaign: id(),
  };
  const names = { accept: `Obs Accept ${suffix}`, partnerOk: `obs-partner-ok-${suffix}`, partnerDown: `obs-partner-down-${suffix}` };

  // Canary contact data: unique to this run, so any occurrence in a log is a leak.
  const tag = uniqueSuffix();
  const letters = tag.replace(/[0-9]/g, (d) => 'ghijklmnop'[Number(d)]);
  const digits = `512${randomInt(2_000_000, 9_999_999)}`;
  const [area, exchange, line] = [digits.slice(0, 3), digits.slice(3, 6), digits.slice(6)];
  const canary = {
    first_name: `Zebulon${letters}`,
    last_name: `Quillfeather${letters}`,
    email: `Canary.${tag}@Example.com`,
    phone: `(${area}) ${exchange}-${line}`,
    address_line_1: `${randomInt(100, 999)} Canaryvale${letters} Lane`,
  };
  const badEmail = `canary.${tag}@@example`;
  /** Every spelling of the canaries a log could hold (checked case-insensitively). */
  const forbidden = [
    canary.first_name,
    canary.last_name,
    `canary.${tag}`, // the email's local part: every spelling of the email, the bad one included
    canary.address_line_1,
    `Canaryvale${letters}`,
    digits,
    `${area}-${exchange}-${line}`,
    `${area}.${exchange}.${line}`,
    `${area} ${exchange} ${line}`,
    `(${area}) ${exchange}-${line}`,
    `(${area})${exchange}-${line}`,
    `${exchange}-${line}`,
    `${exchange}${line}`,
  ].map((s) => s.toLowerCase());

  const rid = {
    search: `obs-search-${suffix}`,
    accept: `obs-accept-${suffix}`,
    partner: `obs-partner-${suffix}`,
    reject: `obs-reject-${suffix}`,
    error: `obs-error-${suffix}`,
    dupe: `obs-dupe-${suffix}`,
    invalid: `obs-invalid-${suffix}`,
    poison: `obs-poison-${suffix}`,
    malformed: `obs-malformed-${suffix}`,
  };

  const apps: Partial<Record<AppName, RunningApp>> = {};
  const output: Partial<Record<AppName, string>> = {};
  const metrics: Partial<Record<AppName, Sample[]>> = {};
  const families: Partial<Record<AppName, Set<string>>> = {};
  let key: string;
  let tightKey: string;
  const answers: Record<string, HttpAnswer> = {};
  /** The correlation id the gateway gave a request: its answer's X-Request-Id. */
  const cid = (answer: keyof typeof rid) => answers[answer].headers.get('x-request-id') ?? `no id answered to ${answer}`;

  const own = (offerId: string, schoolId: string, name: string, outcome: string) =>
    ownOffer(offerId, schoolId, name, `${apps.sandbox!.url}/schools/obs-${suffix}-${outcome}/leads?outcome=${outcome}`);

  const lead = () => ({
    personal: {
      first_name: canary.first_name,
      last_name: canary.last_name,
      email: canary.email,
      phone: canary.phone,
      date_of_birth: '1994-03-09',
    },
    address: { address_line_1: canary.address_line_1, city: 'Austin', state: 'TX', zip_code: '78701' },
    education: { education_level: 'associate', high_school_graduation_year: '2012' },
  });
  const searchBody = (extra: Record<string, unknown> = {}) => ({
    svc_campaign_id: ids.campaign,
    svc_affiliate_id: ids.aff,
    lead: lead(),
    tracking: { ip_address: '73.12.44.10', subid: 'obs' },
    ...extra,
  });
  const gw = () => apps.gateway!.url;

  beforeAll(async () => {
    apps.sandbox = await startApp('sandbox', env, 'live');
    const partnerUrl = (name: string, outcome: string) => `${apps.sandbox!.url}/partners/${name}?match=all&outcome=${outcome}`;
    applyCatalog(
      {
        affiliates: [{ id: ids.aff, name: 'Obs affiliate', status: 'active', dupe_check: true }],
        schools: [
          { id: ids.sAccept, name: names.accept, logo_url: null },
          { id: ids.sReject, name: `Obs Reject ${suffix}`, logo_url: null },
          { id: ids.sError, name: `Obs Error ${suffix}`, logo_url: null },
          { id: ids.sPartner, name: `Obs Partner School ${suffix}`, logo_url: null },
        ],
        partners: [
          {
            id: ids.partnerOk,
            name: names.partnerOk,
            adapter: 'sandbox',
            base_url: partnerUrl(names.partnerOk, 'accept'),
            timeout_ms: 4000,
          },
          {
            id: ids.partnerDown,
            name: names.partnerDown,
            adapter: 'sandbox',
            base_url: partnerUrl(names.partnerDown, 'error'),
            timeout_ms: 4000,
          },
        ],
        offers: [
          own(ids.oAccept, ids.sAccept, 'Accepting', 'accept'),
          own(ids.oReject, ids.sReject, 'Refusing', 'reject'),
          own(ids.oError, ids.sError, 'Failing', 'error'),
          partnerOffer(ids.pOffer, ids.sPartner, 'Partner offer', ids.partnerOk, `ext-ok-${suffix}`, { result_ttl_seconds: 900 }),
          partnerOffer(ids.pOfferDown, ids.sPartner, 'Partner offer down', ids.partnerDown, `ext-down-${suffix}`, {
            result_ttl_seconds: 900,
          }),
        ],
        campaigns: [
          campaign(ids.campaign, ids.aff, 'Obs', [
            { offer_id: ids.oAccept, payout: 20 },
            { offer_id: ids.oReject, payout: 20 },
            { offer_id: ids.oError, payout: 20 },
            { offer_id: ids.pOffer, payout: 10 },
            { offer_id: ids.pOfferDown, payout: 10 },
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
    key = issueKey(ids.aff, env, roomy).key;
    tightKey = issueKey(ids.aff, env, ['--limit', 'search=1/1']).key;
    const workers = await Promise.all(
      (['checks', 'partner-adapter', 'search-orchestrator', 'delivery'] as const).map((a) => startApp(a, env)),
    );
    for (const w of workers) apps[w.app] = w;
    apps.gateway = await startApp('gateway', env);
    await runTraffic();
    // Scrape while every app runs, then stop them all (SIGTERM) to read their whole output.
    for (const [name, app] of Object.entries(apps) as Array<[AppName, RunningApp]>) {
      const scraped = await scrape(app.managementUrl);
      metrics[name] = scraped.samples;
      families[name] = scraped.families;
    }
    await stopAllApps();
    for (const [name, app] of Object.entries(apps) as Array<[AppName, RunningApp]>) output[name] = app.output();
  });

  afterAll(() => stopAppsAndTopology(env));

  /** Search, poll, four submits, the pre-check and the error paths, each with its own request id. */
  async function runTraffic(): Promise<void> {
    const post = (path: string, body: unknown, headers: Record<string, string> = {}, k = key) =>
      call(gw(), 'POST', path, { key: k, body, headers });
    answers.search = await post('/api/v1/engine/search', searchBody(), { 'X-Request-Id': rid.search });
    expect(answers.search.status).toBe(200);
    const searchId = answers.search.body.svc_lead_id as string;
    let body = answers.search.body;
    for (let i = 0; !body.processing_done && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 150));
      body = (await call(gw(), 'GET', `/api/v1/engine/results/${searchId}`, { key })).body;
    }
    expect(body.processing_done).toBe(true);
    type Entry = {
      svc_result_id: string;
      offer: { id: string };
      programs: Array<{ value: string }>;
      form_fields: Array<{ name: string; options?: Array<{ value: string }> }>;
    };
    const entryOf = (offerId: string): Entry => {
      const entry = (body.offers as Entry[]).find((o) => o.offer.id === offerId);
      if (!entry) throw new Error(`no result for offer ${offerId}: ${JSON.stringify(body.offers.map((o: Entry) => o.offer.id))}`);
      return entry;
    };
    /** Submits a result with its first program and the first option (or "yes") of each of its questions. */
    const submit = (offerId: string, headers: Record<string, string>) => {
      const entry = entryOf(offerId);
      return post(
        '/api/v1/engine/leads',
        {
          svc_campaign_id: ids.campaign,
          svc_affiliate_id: ids.aff,
          svc_result_id: entry.svc_result_id,
          search_lead_id: searchId,
          tcpa_consent: true,
          consent_button_label: 'Request info',
          ...(entry.programs[0] ? { program_id: entry.programs[0].value } : {}),
          ...Object.fromEntries(entry.form_fields.map((f) => [f.name, f.options?.[0]?.value ?? 'yes'])),
        },
        headers,
      );
    };
    answers.accept = await submit(ids.oAccept, { 'X-Request-Id': rid.accept });
    answers.partner = await submit(ids.pOffer, { 'X-Correlation-Id': rid.partner });
    answers.reject = await submit(ids.oReject, { 'X-Request-Id': rid.reject });
    answers.error = await submit(ids.oError, { 'X-Request-Id': rid.error });

    answers.dupe = await post(
      '/api/v1/engine/dupe-check',
      {
        email: canary.email,
        phone: `+1 ${area}-${exchange}-${line}`,
        first_name: canary.first_name,
        last_name: canary.last_name,
        zip: '78701',
        address: canary.address_line_1,
        dob: '1994-03-09',
      },
      { 'X-Request-Id': rid.dupe },
    );
    // Error paths: a bad email (400 naming the field), an ill-formed request id, contact data in the query string and the path, malformed JSON, a 429.
    const bad = searchBody({ lead: { ...lead(), personal: { ...lead().personal, email: badEmail } } });
    answers.invalid = await post('/api/v1/engine/search', bad, { 'X-Request-Id': rid.invalid });
    answers.illFormedId = await post('/api/v1/engine/search', bad, { 'X-Request-Id': `id with spaces ${tag}` });
    answers.query = await call(gw(), 'POST', `/api/v1/engine/search?email=${encodeURIComponent(canary.email)}&phone=${digits}`, {
      key,
      body: bad,
    });
    answers.path = await call(gw(), 'GET', `/api/v1/engine/results/${encodeURIComponent(canary.email)}`, { key });
    answers.pathPhone = await call(gw(), 'GET', `/api/v1/engine/results/${digits}`, { key });
    answers.malformed = await call(gw(), 'POST', '/api/v1/engine/search', {
      key,
      rawBody: `{"lead":{"personal":{"email":"${canary.email}","phone":"${digits}"`,
    });
    answers.firstTight = await post('/api/v1/engine/search', searchBody(), {}, tightKey);
    answers.limited = await post('/api/v1/engine/search', searchBody(), {}, tightKey);

    // Poisoned messages: contact data where an id belongs (PostgreSQL refuses it on every try, quoting it:
    // retried, then dead-lettered), and a body that is not JSON but a name (dead-lettered at once).
    const amqp = new AmqpConnection(loadConfig('gateway', env));
    await amqp.start();
    try {
      const poison = {
        leadId: canary.email,
        kind: 'result_submit',
        affiliateId: canary.last_name,
        apiKeyId: canary.phone,
        campaignId: canary.last_name,
        resultId: canary.phone,
        searchId: canary.phone,
        offerId: null,
        originLeadId: null,
        lead: lead(),
        tracking: null,
        consumerIp: null,
        ipSource: null,
        programId: null,
        answers: {},
        tcpaConsent: true,
        consentButtonLabel: null,
        formCertUrl: null,
        universalLeadCert: null,
        isTest: false,
        requestedAt: new Date().toISOString(),
      };
      await amqp.publish('submit.requested.v2', poison, { correlationId: rid.poison });
      const { exchange, routingKey } = routeOf(amqp.topology, 'delivery.requested.v1');
      const properties = { messageId: randomUUID(), type: 'delivery.requested.v1', correlationId: rid.malformed, persistent: true };
      await amqp.send(exchange, routingKey, Buffer.from(`${canary.first_name} ${canary.last_name}, ${canary.phone}`), () => properties);
    } finally {
      await amqp.close();
    }
    await eventually(
      () => apps.checks!.output().includes('dead-lettering submit.requested.v2'),
      15_000,
      'the poisoned message to be dead-lettered',
    );
    await eventually(
      () => apps.delivery!.output().includes('dead-lettering delivery.requested.v1'),
      15_000,
      'the malformed message to be dead-lettered',
    );
    // The partner-adapter and the orchestrator log after they answered: wait for the last lines of the flow.
    await eventually(
      () => {
        const lines = logLines(apps['search-orchestrator']!.output()).filter((l) => l.correlation_id === cid('search'));
        const merged = lines.filter((l) => l.msg === 'partner answers merged');
        const partners = new Set(merged.flatMap((l) => l.partner_ids as string[]));
        // Both partners merged (in one message or two), and each merge's message handled.
        return (
          partners.has(ids.partnerOk) &&
          partners.has(ids.partnerDown) &&
          handledMessages(lines, 'partner.search.answered.v2').length >= merged.length
        );
      },
      10_000,
      'both partner answers to be merged',
    );
  }

  const lines = (app: AppName): LogLine[] => logLines(output[app] ?? '');
  const withId = (app: AppName, correlationId: string) => lines(app).filter((l) => l.correlation_id === correlationId);
  const handled = (app: AppName, type: string, correlationId: string) =>
    handledMessages(lines(app), type).filter((l) => l.correlation_id === correlationId);

  describe('correlation id', () => {
    it('answers every request with an id of its own, never the caller’s, and logs the caller’s well-formed one beside it', () => {
      const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
      for (const name of ['search', 'partner', 'invalid', 'illFormedId', 'path'])
        expect(answers[name].headers.get('x-request-id')).toMatch(uuid);
      const access = (id: string) => lines('gateway').find((l) => String(l.msg).startsWith('request ') && l.correlation_id === id);
      expect(access(cid('search'))).toEqual(expect.objectContaining({ client_request_id: rid.search }));
      expect(access(cid('partner'))).toEqual(expect.objectContaining({ client_request_id: rid.partner }));
      expect(access(cid('invalid'))).toEqual(expect.objectContaining({ client_request_id: rid.invalid }));
      expect(access(answers.illFormedId.headers.get('x-request-id')!)).not.toHaveProperty('client_request_id');
      // No line of any app is filed under a caller's id.
      for (const app of ['gateway', 'search-orchestrator', 'checks', 'partner-adapter', 'delivery'] as AppName[]) {
        expect(lines(app).filter((l) => [rid.search, rid.accept, rid.partner, rid.invalid].includes(l.correlation_id as string))).toEqual(
          [],
        );
      }
    });

    it('follows a search through every message: gateway -> orchestrator -> partner-adapter -> orchestrator', () => {
      expect(withId('gateway', cid('search'))).toContainEqual(
        expect.objectContaining({ msg: 'request completed', res: { statusCode: 200 } }),
      );
      // The orchestrator judges the offers itself with libs/domain's rules, at the start and on each partner's answer (docs/decisions.md).
      expect(handled('search-orchestrator', 'search.requested.v2', cid('search'))).toHaveLength(1);
      // One request for both partners; their answers in one message or two (as they ended), each partner merged once.
      expect(handled('partner-adapter', 'partner.search.requested.v2', cid('search'))).toHaveLength(1);
      const answered = handled('search-orchestrator', 'partner.search.answered.v2', cid('search'));
      expect(answered.length).toBeGreaterThanOrEqual(1);
      expect(answered.length).toBeLessThanOrEqual(2);
      const merged = withId('search-orchestrator', cid('search')).filter((l) => l.msg === 'partner answers merged');
      expect(merged.flatMap((l) => l.partner_ids as string[]).sort()).toEqual([ids.partnerDown, ids.partnerOk].sort());
      // Lines a handler writes itself carry it too (partner-adapter: one per partner answer, debug or warn).
      expect(
        withId('partner-adapter', cid('search'))
          .filter((l) => l.msg === 'partner search answered')
          .map((l) => l.partner)
          .sort(),
      ).toEqual([names.partnerDown, names.partnerOk].sort());
    });

    it('follows each submit: gateway -> checks -> delivery (-> partner-adapter for a partner result)', () => {
      for (const r of [cid('accept'), cid('partner'), cid('reject'), cid('error')]) {
        expect(withId('gateway', r)).toContainEqual(expect.objectContaining({ msg: 'request completed' }));
        expect(handled('checks', 'submit.requested.v2', r)).toHaveLength(1);
        expect(handled('delivery', 'delivery.requested.v1', r)).toHaveLength(1);
      }
      expect(handled('partner-adapter', 'partner.submit.requested.v1', cid('partner'))).toHaveLength(1);
      expect(withId('gateway', cid('dupe'))).toContainEqual(
        expect.objectContaining({ msg: 'request completed', res: { statusCode: 200 } }),
      );
    });

    it('writes one request-completed line per request except polls (counted and timed in metrics), and none for probes (on the management port)', () => {
      const access = lines('gateway').filter((l) => l.msg === 'request completed' || l.msg === 'request errored');
      const urls = access.map((l) => (l.req as { url: string }).url);
      expect(urls).toContain('/api/v1/engine/search');
      expect(urls).toContain('/api/v1/engine/leads');
      expect(urls.filter((u) => u.startsWith('/api/v1/engine/results/') && /[0-9a-f-]{36}$/.test(u))).toEqual([]);
      expect(urls.filter((u) => /^\/(health|metrics)/.test(u))).toEqual([]);
      for (const l of access)
        expect(l).toEqual(expect.objectContaining({ responseTime: expect.any(Number), res: { statusCode: expect.any(Number) } }));
    });

    it('is on the retry and dead-letter lines of a failing message', () => {
      expect(withId('checks', rid.poison).map((l) => l.msg)).toEqual(
        expect.arrayContaining([expect.stringMatching(/failed on try 1; retrying/), expect.stringMatching(/^dead-lettering/)]),
      );
      expect(withId('delivery', rid.malformed).map((l) => l.msg)).toContainEqual(
        expect.stringMatching(/^dead-lettering .* invalid JSON body/),
      );
    });

    it('is on every line written while handling a request or a message, in every app', () => {
      for (const app of ['gateway', 'search-orchestrator', 'checks', 'partner-adapter', 'delivery', 'sandbox'] as AppName[]) {
        const about = lines(app).filter((l) => 'req' in l || 'message_id' in l || 'search_id' in l || 'lead_id' in l);
        expect(about.length).toBeGreaterThan(0);
        const without = about.filter((l) => typeof l.correlation_id !== 'string' || l.correlation_id === '');
        expect(without).toEqual([]);
        // A request's lines carry that request's id.
        for (const l of about.filter((x) => 'req' in x)) expect(l.correlation_id).toBe((l.req as { id: string }).id);
      }
    });
  });

  describe('contact data never reaches a log', () => {
    it('the flow really carried the canaries (the error paths answered as expected)', () => {
      expect(answers.accept.body).toEqual(expect.objectContaining({ code: 'ACCEPTED' }));
      expect(answers.partner.body).toEqual(expect.objectContaining({ code: 'ACCEPTED' }));
      expect(answers.reject.body.success).toBe(false);
      expect(answers.error.body.success).toBe(false);
      expect([answers.dupe.status, answers.dupe.body.duplicate_likely]).toEqual([200, true]);
      expect([answers.invalid.status, answers.invalid.body.field]).toEqual([400, 'lead.personal.email']);
      expect([answers.query.status, answers.path.status, answers.pathPhone.status, answers.malformed.status]).toEqual([400, 404, 404, 400]);
      expect([answers.firstTight.status, answers.limited.status]).toEqual([200, 429]);
    });

    it.each(['gateway', 'search-orchestrator', 'checks', 'partner-adapter', 'delivery', 'sandbox'] as AppName[])(
      '%s logs none of them',
      (app) => {
        const text = (output[app] ?? '').toLowerCase();
        expect(lines(app).length).toBeGreaterThan(10); // debug level: there is plenty to search
        const found = forbidden.filter((value) => text.includes(value));
        expect(found).toEqual([]);
      },
    );
  });

  describe('metrics', () => {
    const m = (app: AppName) => metrics[app] ?? [];

    it('gateway: searches, submits by code, rate-limit refusals, errors, the pre-check, request durations', () => {
      expect(total(m('gateway'), 'gateway_searches_total')).toBeGreaterThanOrEqual(2);
      expect(total(m('gateway'), 'gateway_submits_total', { code: 'ACCEPTED' })).toBe(2);
      expect(total(m('gateway'), 'gateway_submits_total')).toBe(4);
      expect(total(m('gateway'), 'gateway_rate_limited_total', { endpoint: 'search' })).toBe(1);
      expect(total(m('gateway'), 'gateway_error_answers_total', { status: '400' })).toBeGreaterThanOrEqual(3);
      expect(total(m('gateway'), 'gateway_dupe_check_answers_total')).toBe(1);
      expect(total(m('gateway'), 'gateway_polls_total')).toBeGreaterThanOrEqual(1);
      expect(
        total(m('gateway'), 'http_request_duration_seconds_count', { route: '/api/v1/engine/search', status: '200' }),
      ).toBeGreaterThanOrEqual(2);
      expect(total(m('gateway'), 'http_request_duration_seconds_count', { route: '/api/v1/engine/leads' })).toBe(4);
    });

    it('search-orchestrator: results shown by source, partner answers, handler durations', () => {
      const orch = m('search-orchestrator');
      expect(total(orch, 'search_results_shown_total', { source: 'own' })).toBeGreaterThanOrEqual(3);
      expect(total(orch, 'search_results_shown_total', { source: 'partner' })).toBeGreaterThanOrEqual(1);
      expect(total(orch, 'search_first_results_count')).toBeGreaterThanOrEqual(1);
      expect(total(orch, 'search_partner_answers_total')).toBeGreaterThanOrEqual(2);
      expect(
        total(orch, 'messaging_handler_duration_seconds_count', {
          consumer: 'search-orchestrator',
          type: 'search.requested.v2',
          outcome: 'ack',
        }),
      ).toBeGreaterThanOrEqual(1);
    });

    it('partner-adapter: search and submit latency per partner, calls by outcome', () => {
      const pa = m('partner-adapter');
      expect(total(pa, 'partner_search_duration_seconds_count', { partner: names.partnerOk, outcome: 'answered' })).toBe(1);
      // The rate-limit test's first search asks the failing partner again (the other one sold this person already).
      expect(total(pa, 'partner_search_duration_seconds_count', { partner: names.partnerDown, outcome: 'error' })).toBeGreaterThanOrEqual(
        1,
      );
      expect(total(pa, 'partner_submit_duration_seconds_count', { partner: names.partnerOk, outcome: 'accepted' })).toBe(1);
      expect(total(pa, 'partner_calls_total', { partner: names.partnerOk, operation: 'submit' })).toBe(1);
    });

    it('delivery: school and partner latency per buyer, decisions by code', () => {
      const d = m('delivery');
      expect(total(d, 'delivery_buyer_seconds_count', { kind: 'school', buyer: names.accept, outcome: 'accepted' })).toBe(1);
      expect(total(d, 'delivery_buyer_seconds_count', { kind: 'partner', buyer: names.partnerOk, outcome: 'accepted' })).toBe(1);
      expect(total(d, 'delivery_buyer_seconds_count', { kind: 'school' })).toBe(3);
      expect(total(d, 'delivery_submits_total', { code: 'ACCEPTED' })).toBe(2);
      expect(total(d, 'delivery_submits_total')).toBe(4);
    });

    it('checks and delivery: handler durations, failures, retries and dead letters of the poisoned messages', () => {
      const c = m('checks');
      expect(
        total(c, 'messaging_handler_duration_seconds_count', { consumer: 'checks', type: 'submit.requested.v2', outcome: 'ack' }),
      ).toBe(4);
      expect(
        total(m('delivery'), 'messaging_handler_duration_seconds_count', {
          consumer: 'delivery',
          type: 'delivery.requested.v1',
          outcome: 'ack',
        }),
      ).toBe(4);
      expect(total(c, 'messaging_handler_failures_total', { consumer: 'checks', type: 'submit.requested.v2' })).toBe(3);
      expect(total(c, 'messaging_messages_retried_total', { consumer: 'checks' })).toBe(2);
      expect(total(c, 'messaging_messages_dead_lettered_total', { consumer: 'checks', cause: 'exhausted' })).toBe(1);
      expect(total(m('delivery'), 'messaging_messages_dead_lettered_total', { consumer: 'delivery', cause: 'malformed' })).toBe(1);
    });

    it.each(['search-orchestrator', 'checks', 'partner-adapter', 'delivery'] as AppName[])('%s declares the messaging metrics', (app) => {
      for (const name of [
        'messaging_handler_duration_seconds',
        'messaging_handler_failures_total',
        'messaging_messages_dead_lettered_total',
        'messaging_broker_connected',
      ]) {
        expect(families[app]?.has(name)).toBe(true);
      }
      expect(total(m(app), 'messaging_broker_connected')).toBe(1);
      // The depths of its own queue and DLQ, and of no other.
      const queues = (name: string) =>
        m(app)
          .filter((s) => s.name === name)
          .map((s) => s.labels.queue);
      expect(queues('messaging_queue_depth')).toEqual([`${env.AMQP_PREFIX}.${app}`]);
      expect(queues('messaging_dlq_depth')).toEqual([`${env.AMQP_PREFIX}.${app}.dlq`]);
    });

    it('delivery: the leads waiting for their buyer, read from PostgreSQL', () => {
      const d = m('delivery');
      expect(d.filter((s) => s.name === 'delivery_pending_leads').map((s) => s.value)).toEqual([expect.any(Number)]);
      const oldest = d.filter((s) => s.name === 'delivery_pending_lead_oldest_seconds').map((s) => s.value);
      expect(oldest).toHaveLength(1);
      expect(oldest[0]).toBeGreaterThanOrEqual(0);
    });
  });
});
