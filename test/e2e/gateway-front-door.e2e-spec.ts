import { Client } from 'pg';
import { buildTestCatalog, searchBody } from '../support/catalog-builder';
import { call } from '../support/http';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey, runOps } from '../support/ops';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../support/test-env';
import { openedRow } from '../support/sealed-rows';

/**
 * The gateway's front door, black-box over HTTP against the built gateway and
 * search-orchestrator on the real PostgreSQL, Redis and RabbitMQ.
 */
describe('gateway front door (e2e)', () => {
  const env = testEnv(uniqueSuffix());
  const { ids, catalog } = buildTestCatalog();
  let gateway: RunningApp;
  let orchestrator: RunningApp;
  let keyA: string;
  let keyB: string;
  let db: Client;
  const search = (key: string | undefined, body: unknown, extra: Parameters<typeof call>[3] = {}) =>
    call(gateway.url, 'POST', '/api/v1/engine/search', { key, body, ...extra });

  beforeAll(async () => {
    applyCatalog(catalog, env);
    // Generous budgets: these tests are about everything but the rate limit (rate-limit.e2e-spec.ts).
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
    keyA = issueKey(ids.affiliateA, env, roomy).key;
    keyB = issueKey(ids.affiliateB, env, roomy).key;
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    await startApp('checks', env);
    orchestrator = await startApp('search-orchestrator', { ...env, LOG_LEVEL: 'info' });
    gateway = await startApp('gateway', env);
  });

  afterAll(async () => {
    await stopAppsAndTopology(env);
    await db?.end();
  });

  describe('search travels gateway → RabbitMQ → search-orchestrator and back', () => {
    it('answers the envelope with a svc_lead_id stored in PostgreSQL, with its lead and tracking', async () => {
      const res = await search(
        keyA,
        searchBody(ids.campaignA, ids.affiliateA, { form_cert_url: 'https://cert.example/1', svc_is_test_lead: true }),
        {
          headers: { 'X-Request-Id': 'req-e2e-search-0001' },
        },
      );
      expect(res.status).toBe(200);
      // The gateway's own request id (never the caller's X-Request-Id) travels as the message's correlation id into the orchestrator's logs.
      const requestId = res.headers.get('x-request-id');
      expect(requestId).not.toBe('req-e2e-search-0001');
      // The orchestrator logs after it has replied and acked, so its line may reach us a moment later.
      const handledLines = () =>
        orchestrator
          .output()
          .split('\n')
          .filter((l) => l.includes('"message handled"'))
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      for (let i = 0; i < 50 && !handledLines().some((l) => l.message_id === res.body.svc_lead_id); i += 1) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(handledLines()).toContainEqual(
        expect.objectContaining({
          type: 'search.requested.v2',
          message_id: res.body.svc_lead_id,
          correlation_id: requestId,
          outcome: 'ack',
        }),
      );
      expect(res.body).toEqual(
        expect.objectContaining({
          code: 'OK',
          status: 'accepted',
          success: true,
          // The campaign's partner offer is still being asked (no partner-adapter runs in this file).
          processing_done: false,
          poll_after_ms: 1000,
          accepted_count: 0,
          max_accepted_submissions: 3,
          true_exclusive_accepted: false,
          offers: [expect.objectContaining({ offer: expect.objectContaining({ id: ids.offer }) })],
        }),
      );
      // Stored with its contact data sealed: opened, it is the lead as sent.
      const row = { rows: [await openedRow(db, 'searches', res.body.svc_lead_id)] };
      expect(row.rows[0]!.stored_lead.personal).toBeUndefined();
      expect(row.rows[0]).toEqual(
        expect.objectContaining({
          affiliate_id: ids.affiliateA,
          campaign_id: ids.campaignA,
          consumer_ip: '73.12.44.10',
          is_test: true,
          form_cert_url: 'https://cert.example/1',
        }),
      );
      expect(row.rows[0]!.lead.personal.phone).toBe('5125550100');
      expect(row.rows[0]!.tracking.subid).toBe('e2e');

      const poll = await call(gateway.url, 'GET', `/api/v1/engine/results/${res.body.svc_lead_id}`, { key: keyA });
      expect(poll.status).toBe(200);
      expect(poll.body.svc_lead_id).toBe(res.body.svc_lead_id);
      const other = await call(gateway.url, 'GET', `/api/v1/engine/results/${res.body.svc_lead_id}`, { key: keyB });
      expect(other.status).toBe(404);
      expect(other.body.code).toBe('NOT_FOUND');
    });
  });

  describe('authentication', () => {
    it('no key: 401 AUTH_REQUIRED', async () => {
      const res = await search(undefined, searchBody(ids.campaignA, ids.affiliateA));
      expect(res.status).toBe(401);
      expect(res.body).toEqual(
        expect.objectContaining({ code: 'AUTH_REQUIRED', status: 'invalid', reason: 'Missing API key', retryable: false }),
      );
    });

    it('unknown key: 401 AUTH_INVALID, on every endpoint', async () => {
      for (const [method, path] of [
        ['POST', '/api/v1/engine/search'],
        ['GET', '/api/v1/engine/results/00000000-0000-4000-8000-000000000000'],
        ['POST', '/api/v1/engine/leads'],
        ['POST', '/api/v1/engine/dupe-check'],
      ]) {
        const res = await call(gateway.url, method, path, { key: 'lr_not-a-real-key', body: method === 'POST' ? {} : undefined });
        expect([path, res.status, res.body.code, res.body.reason]).toEqual([path, 401, 'AUTH_INVALID', 'Invalid API key']);
      }
    });

    it('accepts Authorization: Bearer and X-API-Key', async () => {
      const poll = (header: 'bearer' | 'x-api-key') =>
        call(gateway.url, 'GET', '/api/v1/engine/results/00000000-0000-4000-8000-000000000000', { key: keyA, header });
      expect((await poll('bearer')).status).toBe(404);
      expect((await poll('x-api-key')).status).toBe(404);
    });

    it('a revoked key is refused at once', async () => {
      const issued = issueKey(ids.affiliateA, env);
      const before = await search(issued.key, searchBody(ids.campaignA, ids.affiliateA));
      expect(before.status).toBe(200);
      expect(runOps(['keys', 'revoke', issued.id], env).code).toBe(0);
      const after = await search(issued.key, searchBody(ids.campaignA, ids.affiliateA));
      expect([after.status, after.body.code]).toEqual([401, 'AUTH_INVALID']);
    });

    it('an expired key is refused', async () => {
      // Time enough for the CLI to start and issue it on a slow host; then the key's expiry passes.
      const expiresAt = Date.now() + 5000;
      const issued = issueKey(ids.affiliateA, env, ['--expires-at', new Date(expiresAt).toISOString()]);
      expect((await search(issued.key, searchBody(ids.campaignA, ids.affiliateA))).status).toBe(200);
      await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now()) + 200));
      const after = await search(issued.key, searchBody(ids.campaignA, ids.affiliateA));
      expect([after.status, after.body.code]).toEqual([401, 'AUTH_INVALID']);
    });

    it('a paused affiliate’s keys: 403 FORBIDDEN', async () => {
      const paused = buildTestCatalog();
      applyCatalog(paused.catalog, env);
      const pausedKey = issueKey(paused.ids.affiliateA, env).key;
      expect((await search(pausedKey, searchBody(paused.ids.campaignA, paused.ids.affiliateA))).status).toBe(200);
      applyCatalog({ affiliates: [{ ...paused.catalog.affiliates[0], status: 'paused' }] }, env);
      const res = await search(pausedKey, searchBody(paused.ids.campaignA, paused.ids.affiliateA));
      expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
    });

    it('svc_affiliate_id not the key’s affiliate: 403 FORBIDDEN', async () => {
      const res = await search(keyA, searchBody(ids.campaignA, ids.affiliateB));
      expect(res.status).toBe(403);
      expect(res.body).toEqual(expect.objectContaining({ code: 'FORBIDDEN', status: 'invalid', reason: 'Not permitted' }));
    });
  });

  describe('campaign', () => {
    it.each([
      ['unknown', () => '11111111-1111-4111-8111-111111111111'],
      ['paused', () => ids.campaignAPaused],
      ['another affiliate’s', () => ids.campaignB],
    ])('%s campaign: 400 NOT_FOUND', async (_name, campaign) => {
      const res = await search(keyA, searchBody(campaign(), ids.affiliateA));
      expect(res.status).toBe(400);
      expect(res.body).toEqual(expect.objectContaining({ code: 'NOT_FOUND', field: 'svc_campaign_id' }));
    });
  });

  describe('validation names the field', () => {
    type JsonObject = { [key: string]: unknown };
    /** The object holding a dotted path's last field, and that field's name. */
    const parentOf = (b: JsonObject, path: string): [JsonObject, string] => {
      const keys = path.split('.');
      const last = keys.pop()!;
      return [keys.reduce((o, k) => o[k] as JsonObject, b), last];
    };
    /** Sets the field at a dotted path of a search body. */
    const set = (path: string, value: unknown) => (b: JsonObject) => {
      const [o, k] = parentOf(b, path);
      o[k] = value;
    };
    /** Removes the field at a dotted path of a search body. */
    const drop = (path: string) => (b: JsonObject) => {
      const [o, k] = parentOf(b, path);
      delete o[k];
    };
    const cases: Array<[string, (b: JsonObject) => void, number, string, string]> = [
      ['svc_campaign_id missing', drop('svc_campaign_id'), 400, 'REQUIRED_FIELD_MISSING', 'svc_campaign_id'],
      ['svc_campaign_id not a UUID', set('svc_campaign_id', 'abc'), 400, 'INVALID_FIELD', 'svc_campaign_id'],
      ['svc_affiliate_id missing', drop('svc_affiliate_id'), 400, 'REQUIRED_FIELD_MISSING', 'svc_affiliate_id'],
      ['lead missing', drop('lead'), 400, 'REQUIRED_FIELD_MISSING', 'lead'],
      ['lead not an object', set('lead', 'x'), 400, 'INVALID_FIELD', 'lead'],
      ['tracking missing', drop('tracking'), 400, 'REQUIRED_FIELD_MISSING', 'tracking'],
      ['ip missing', drop('tracking.ip_address'), 400, 'REQUIRED_FIELD_MISSING', 'tracking.ip_address'],
      ['ip private', set('tracking.ip_address', '192.168.1.20'), 400, 'INVALID_FIELD', 'tracking.ip_address'],
      ['ip shared', set('tracking.ip_address', '100.64.3.3'), 400, 'INVALID_FIELD', 'tracking.ip_address'],
      ['ip documentation', set('tracking.ip_address', '2001:db8::5'), 400, 'INVALID_FIELD', 'tracking.ip_address'],
      ['ip mapped loopback', set('tracking.ip_address', '::ffff:127.0.0.1'), 400, 'INVALID_FIELD', 'tracking.ip_address'],
      ['email', set('lead.personal.email', 'nope'), 400, 'INVALID_FIELD', 'lead.personal.email'],
      ['phone', set('lead.personal.phone', '12345'), 400, 'INVALID_FIELD', 'lead.personal.phone'],
      ['date of birth', set('lead.personal.date_of_birth', '1995-02-30'), 400, 'INVALID_FIELD', 'lead.personal.date_of_birth'],
      ['state', set('lead.address.state', 'ZZ'), 400, 'INVALID_FIELD', 'lead.address.state'],
      ['education level', set('lead.education.education_level', 'phd'), 400, 'INVALID_FIELD', 'lead.education.education_level'],
      ['flat zip', set('lead.zip', '12'), 400, 'INVALID_FIELD', 'lead.zip'],
      ['tcpa_consent type', set('tcpa_consent', 'yes'), 400, 'INVALID_FIELD', 'tcpa_consent'],
      ['svc_is_test_lead type', set('svc_is_test_lead', 1), 400, 'INVALID_FIELD', 'svc_is_test_lead'],
    ];
    it.each(cases)('%s', async (_name, mutate, status, code, field) => {
      const body = JSON.parse(JSON.stringify(searchBody(ids.campaignA, ids.affiliateA))) as JsonObject;
      mutate(body);
      const res = await search(keyA, body);
      expect([res.status, res.body.code, res.body.field, res.body.status]).toEqual([status, code, field, 'invalid']);
      expect(res.body.reason).toContain(field);
    });

    it('accepts flat lead keys and vocabulary values in any case', async () => {
      const body = searchBody(ids.campaignA, ids.affiliateA, {
        lead: { email: 'flat@example.com', phone: '+1 512 555 0199', zip: '75001-1234', state: 'tx', education_level: 'Associate' },
      });
      const res = await search(keyA, body);
      expect(res.status).toBe(200);
      const row = await openedRow(db, 'searches', res.body.svc_lead_id);
      expect(row!.lead).toEqual({
        personal: { email: 'flat@example.com', phone: '5125550199' },
        address: { zip_code: '75001-1234', state: 'TX' },
        education: { education_level: 'associate' },
      });
    });
  });

  describe('the envelope on every answer', () => {
    it('unknown route: 404 NOT_FOUND', async () => {
      const res = await call(gateway.url, 'GET', '/api/v2/whatever', { key: keyA });
      expect([res.status, res.body.code, res.body.status]).toEqual([404, 'NOT_FOUND', 'invalid']);
    });

    it('wrong method on a known path: 405 MALFORMED_REQUEST with Allow', async () => {
      const res = await call(gateway.url, 'DELETE', '/api/v1/engine/search', { key: keyA });
      expect([res.status, res.body.code, res.headers.get('allow')]).toEqual([405, 'MALFORMED_REQUEST', 'POST']);
      const dupe = await call(gateway.url, 'GET', '/api/v1/engine/dupe-check', { key: keyA });
      expect([dupe.status, dupe.body.code]).toEqual([405, 'MALFORMED_REQUEST']);
      expect(dupe.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('malformed JSON: 400 MALFORMED_REQUEST', async () => {
      const res = await call(gateway.url, 'POST', '/api/v1/engine/search', { key: keyA, rawBody: '{"svc_campaign_id": ' });
      expect([res.status, res.body.code, res.body.reason]).toEqual([400, 'MALFORMED_REQUEST', 'Malformed JSON body']);
    });

    it('a JSON body that is not an object: 400 MALFORMED_REQUEST', async () => {
      const res = await call(gateway.url, 'POST', '/api/v1/engine/search', { key: keyA, rawBody: '[1,2]' });
      expect([res.status, res.body.code]).toEqual([400, 'MALFORMED_REQUEST']);
    });

    it('wrong content type: 415 MALFORMED_REQUEST', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const res = await call(gateway.url, 'POST', '/api/v1/engine/search', {
          key: keyA,
          rawBody: 'a=b',
          headers: { 'Content-Type': type },
        });
        expect([type, res.status, res.body.code]).toEqual([type, 415, 'MALFORMED_REQUEST']);
      }
    });

    it('oversized body: 413 (256 KB on search, 16 KB on dupe-check)', async () => {
      const big = await search(keyA, { ...searchBody(ids.campaignA, ids.affiliateA), pad: 'x'.repeat(300 * 1024) });
      expect([big.status, big.body.code]).toEqual([413, 'MALFORMED_REQUEST']);
      const dupe = await call(gateway.url, 'POST', '/api/v1/engine/dupe-check', {
        key: keyA,
        body: { email: 'a@b.co', pad: 'x'.repeat(17 * 1024) },
      });
      expect([dupe.status, dupe.body.code]).toEqual([413, 'MALFORMED_REQUEST']);
      const fits = await call(gateway.url, 'POST', '/api/v1/engine/dupe-check', { key: keyA, body: { pad: 'x'.repeat(15 * 1024) } });
      expect(fits.status).toBe(400);
    });
  });

  describe('leads and dupe-check front doors', () => {
    it('result submit without search_lead_id: 409 MALFORMED_REQUEST', async () => {
      const res = await call(gateway.url, 'POST', '/api/v1/engine/leads', {
        key: keyA,
        body: { svc_campaign_id: ids.campaignA, svc_affiliate_id: ids.affiliateA, svc_result_id: '5d2c8f7e-0000-4000-8000-000000000001' },
      });
      expect([res.status, res.body.code]).toEqual([409, 'MALFORMED_REQUEST']);
    });

    it('unknown result: 404 search_result_not_found', async () => {
      const res = await call(gateway.url, 'POST', '/api/v1/engine/leads', {
        key: keyA,
        body: {
          svc_campaign_id: ids.campaignA,
          svc_affiliate_id: ids.affiliateA,
          svc_result_id: '5d2c8f7e-0000-4000-8000-000000000001',
          search_lead_id: '5d2c8f7e-0000-4000-8000-000000000002',
        },
      });
      expect([res.status, res.body.code, res.body.error]).toEqual([404, 'NOT_FOUND', 'search_result_not_found']);
    });

    it('direct post missing its lead names the field', async () => {
      const res = await call(gateway.url, 'POST', '/api/v1/engine/leads', {
        key: keyA,
        body: {
          svc_campaign_id: ids.campaignA,
          svc_affiliate_id: ids.affiliateA,
          svc_offer_id: ids.offer,
          tracking: { ip_address: '73.1.1.1' },
        },
      });
      expect([res.status, res.body.code, res.body.field]).toEqual([400, 'REQUIRED_FIELD_MISSING', 'lead']);
    });

    it('direct post to a partner offer: 400 INVALID_FIELD naming svc_offer_id', async () => {
      const res = await call(gateway.url, 'POST', '/api/v1/engine/leads', {
        key: keyA,
        body: {
          svc_campaign_id: ids.campaignA,
          svc_affiliate_id: ids.affiliateA,
          svc_offer_id: ids.partnerOffer,
          lead: {},
          tracking: { ip_address: '73.1.1.1' },
        },
      });
      expect([res.status, res.body.code, res.body.field]).toEqual([400, 'INVALID_FIELD', 'svc_offer_id']);
    });

    it('direct post to an unknown offer: 404 NOT_FOUND', async () => {
      const res = await call(gateway.url, 'POST', '/api/v1/engine/leads', {
        key: keyA,
        body: {
          svc_campaign_id: ids.campaignA,
          svc_affiliate_id: ids.affiliateA,
          svc_offer_id: '7c0d7a4e-0000-4000-8000-00000000abcd',
          lead: {},
          tracking: { ip_address: '73.1.1.1' },
        },
      });
      expect([res.status, res.body.code]).toEqual([404, 'NOT_FOUND']);
    });

    it('leads on another affiliate’s campaign: 403 FORBIDDEN', async () => {
      const res = await call(gateway.url, 'POST', '/api/v1/engine/leads', {
        key: keyA,
        body: {
          svc_campaign_id: ids.campaignB,
          svc_affiliate_id: ids.affiliateA,
          svc_offer_id: ids.offer,
          lead: {},
          tracking: { ip_address: '73.1.1.1' },
        },
      });
      expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
    });

    it('dupe-check: no usable field 400, bad offer_id 400, not enabled 404 plain body', async () => {
      const none = await call(gateway.url, 'POST', '/api/v1/engine/dupe-check', { key: keyA, body: { foo: 'bar' } });
      expect([none.status, none.body.code]).toEqual([400, 'MALFORMED_REQUEST']);
      const bad = await call(gateway.url, 'POST', '/api/v1/engine/dupe-check', { key: keyA, body: { email: 'a@b.co', offer_id: 'x' } });
      expect([bad.status, bad.body.code, bad.body.field]).toEqual([400, 'INVALID_FIELD', 'offer_id']);
      const notMine = await call(gateway.url, 'POST', '/api/v1/engine/dupe-check', {
        key: keyA,
        body: { email: 'a@b.co', offer_id: '7c0d7a4e-0000-4000-8000-00000000abcd' },
      });
      expect([notMine.status, notMine.body.code]).toEqual([403, 'FORBIDDEN']);
      const off = await call(gateway.url, 'POST', '/api/v1/engine/dupe-check', { key: keyB, body: { email: 'a@b.co' } });
      expect(off.status).toBe(404);
      expect(off.body).toEqual({ error: expect.any(String) });
    });
  });
});
