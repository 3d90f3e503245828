import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { call, HttpAnswer } from '../support/http';
import { applyCatalog, issueKey } from '../support/ops';
import { person, receivedBySchool, SubmitClient } from '../support/submit-flow';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../support/test-env';
import { campaign, catalogOffer } from '../support/catalog-builder';
import { leadDedupeKeys } from '../../libs/domain/src';
import { TEST_PERSON_KEY_SECRET } from '../support/person-key';

/**
 * Idempotency keys (docs/idempotency.md) against the running services: a
 * retry with the same key and body answers the original answer under the same
 * svc_lead_id and decides nothing twice, also when the gateway that took the
 * first request was killed while the buyer was being called; concurrent
 * requests with one key have one effect and equal answers; the same key with
 * another body, or a key that cannot name a request, is a 400 naming the header.
 */
describe('Idempotency-Key on search and leads (e2e)', () => {
  const suffix = uniqueSuffix();
  const env = testEnv(suffix, { SUBMIT_ANSWER_TIMEOUT_MS: '3000' });
  const id = () => randomUUID();
  const ids = { aff: id(), sFast: id(), sSlow: id(), oFast: id(), oSlow: id(), cFast: id(), cSlow: id() };
  const school = (name: string) => `idem${suffix}-${name}`;
  let sandbox: RunningApp;
  let gateway: RunningApp;
  let client: SubmitClient;
  let apiKey: string;
  let db: Client;

  const own = (offerId: string, schoolId: string, name: string, query: string) =>
    catalogOffer(offerId, schoolId, name, {
      source: 'own',
      priority: 5,
      price: 30,
      tcpa_text: 'I agree.',
      result_ttl_seconds: 900,
      delivery: { adapter: 'sandbox', url: `${sandbox.url}/schools/${school(name)}/leads?${query}`, timeout_ms: 4000 },
    });

  const keyed = (key: string, base: SubmitClient = client) => ({
    search: (campaignId: string, lead: unknown) =>
      call(base.gatewayUrl, 'POST', '/api/v1/engine/search', {
        key: apiKey,
        headers: { 'Idempotency-Key': key },
        body: { svc_campaign_id: campaignId, svc_affiliate_id: ids.aff, lead, tracking: { ip_address: '73.12.44.10', subid: 'idem' } },
      }),
    submit: (campaignId: string, searchId: string, resultId: string, extra: Record<string, unknown> = {}) =>
      call(base.gatewayUrl, 'POST', '/api/v1/engine/leads', {
        key: apiKey,
        headers: { 'Idempotency-Key': key },
        body: {
          svc_campaign_id: campaignId,
          svc_affiliate_id: ids.aff,
          svc_result_id: resultId,
          search_lead_id: searchId,
          tcpa_consent: true,
          consent_button_label: 'Request info',
          ...extra,
        },
      }),
  });
  const count = async (sql: string, values: unknown[]) => Number((await db.query<{ n: string }>(sql, values)).rows[0].n);
  const leadsOfSearch = (searchId: string) => count('SELECT count(*) AS n FROM leads WHERE search_id = $1', [searchId]);
  // A search's email is sealed: its stored person key finds it.
  const searchesOf = (email: string) =>
    count(`SELECT count(*) AS n FROM searches WHERE person_keys @> $1::jsonb`, [
      JSON.stringify(leadDedupeKeys(TEST_PERSON_KEY_SECRET, { personal: { email } }).filter((k) => k.type === 'email')),
    ]);
  const received = async (name: string, leadId: string) => (await receivedBySchool(sandbox.url, school(name))).get(leadId) ?? 0;

  beforeAll(async () => {
    sandbox = await startApp('sandbox', env, 'live');
    applyCatalog(
      {
        affiliates: [{ id: ids.aff, name: 'Idem', status: 'active', dupe_check: false }],
        schools: [
          { id: ids.sFast, name: 'Idem fast' },
          { id: ids.sSlow, name: 'Idem slow' },
        ],
        offers: [own(ids.oFast, ids.sFast, 'fast', 'outcome=accept'), own(ids.oSlow, ids.sSlow, 'slow', 'outcome=accept&delay_ms=1500')],
        campaigns: [
          campaign(ids.cFast, ids.aff, 'Fast', [{ offer_id: ids.oFast, payout: 2 }]),
          campaign(ids.cSlow, ids.aff, 'Slow', [{ offer_id: ids.oSlow, payout: 2 }]),
        ],
      },
      env,
    );
    apiKey = issueKey(ids.aff, env, ['--limit', 'search=60000/1000', '--limit', 'results=60000/1000', '--limit', 'leads=60000/1000']).key;
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    await Promise.all([
      startApp('checks', env),
      startApp('partner-adapter', env),
      startApp('search-orchestrator', env),
      startApp('delivery', env),
    ]);
    gateway = await startApp('gateway', env);
    client = new SubmitClient(gateway.url, apiKey, ids.aff);
  });

  afterAll(async () => {
    await db?.end();
    await stopAppsAndTopology(env);
  });

  it('a retried search answers the same search, stored once', async () => {
    const lead = person();
    const key = `search-${randomUUID()}`;
    const first = await keyed(key).search(ids.cFast, lead);
    expect(first.status).toBe(200);
    expect(first.body.code).toBe('OK');
    const again = await keyed(key).search(ids.cFast, lead);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ code: 'OK', status: 'accepted', svc_lead_id: first.body.svc_lead_id });
    expect(again.body.offers.map((o: { svc_result_id: string }) => o.svc_result_id)).toEqual(
      first.body.offers.map((o: { svc_result_id: string }) => o.svc_result_id),
    );
    expect(await searchesOf(lead.personal.email)).toBe(1);
    // Without a key, the same body is a new search, as the contract says.
    const unkeyed = await client.search(ids.cFast, lead);
    expect(unkeyed.body.svc_lead_id).not.toBe(first.body.svc_lead_id);
    expect(await searchesOf(lead.personal.email)).toBe(2);
  });

  it('a retried submit answers the original decision and svc_lead_id; the buyer gets the lead once', async () => {
    const { searchId, results } = await client.searchDone(ids.cFast, person());
    const resultId = results.get(ids.oFast).svc_result_id;
    const key = randomUUID();
    const first = await keyed(key).submit(ids.cFast, searchId, resultId);
    expect(first.status).toBe(200);
    expect(first.body.code).toBe('ACCEPTED');
    const again = await keyed(key).submit(ids.cFast, searchId, resultId);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await leadsOfSearch(searchId)).toBe(1);
    expect(await received('fast', first.body.svc_lead_id)).toBe(1);
    // Without a key the contract's answer to a repost stands.
    const repost = await client.submit(ids.cFast, searchId, resultId);
    expect(repost.body.code).toBe('DUPLICATE');
  });

  it('ten concurrent submits with one key: one lead, one delivery, ten equal answers', async () => {
    const { searchId, results } = await client.searchDone(ids.cFast, person());
    const resultId = results.get(ids.oFast).svc_result_id;
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 10 }, () => keyed(key).submit(ids.cFast, searchId, resultId)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    for (const a of answers) expect(a.body).toEqual(answers[0].body);
    expect(answers[0].body.code).toBe('ACCEPTED');
    expect(await leadsOfSearch(searchId)).toBe(1);
    expect(await received('fast', answers[0].body.svc_lead_id)).toBe(1);
  });

  it('ten concurrent searches with one key: one search, one svc_lead_id', async () => {
    const lead = person();
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 10 }, () => keyed(key).search(ids.cFast, lead)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.body.svc_lead_id)).size).toBe(1);
    expect(await searchesOf(lead.personal.email)).toBe(1);
  });

  it('the same key with another body is refused, naming the header; so is a key that cannot name a request', async () => {
    const { searchId, results } = await client.searchDone(ids.cFast, person());
    const resultId = results.get(ids.oFast).svc_result_id;
    const key = randomUUID();
    expect((await keyed(key).submit(ids.cFast, searchId, resultId)).body.code).toBe('ACCEPTED');
    const other = await keyed(key).submit(ids.cFast, searchId, resultId, { consent_button_label: 'Something else' });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({
      code: 'INVALID_FIELD',
      status: 'invalid',
      success: false,
      field: 'Idempotency-Key',
      error: 'idempotency_key_reused',
    });
    // A key names one endpoint's request: the same key on search is another request, not a reuse.
    expect((await keyed(key).search(ids.cFast, person())).status).toBe(200);
    for (const bad of ['', 'has space', 'x'.repeat(256), 'ünïcode']) {
      const res = await call(gateway.url, 'POST', '/api/v1/engine/search', {
        key: apiKey,
        headers: { 'Idempotency-Key': bad },
        body: { svc_campaign_id: ids.cFast, svc_affiliate_id: ids.aff, lead: person(), tracking: { ip_address: '73.12.44.10' } },
      }).catch((e: Error) => ({ status: -1, body: { message: e.message } }) as unknown as HttpAnswer);
      if (res.status === -1) continue; // fetch itself refuses some header values before sending
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_FIELD', field: 'Idempotency-Key', error: 'idempotency_key_invalid' });
    }
  });

  it('a retry after the gateway was killed mid-request gets the original decision, under the svc_lead_id it was given', async () => {
    const { searchId, results } = await client.searchDone(ids.cSlow, person());
    const resultId = results.get(ids.oSlow).svc_result_id;
    const key = randomUUID();
    const lost = keyed(key)
      .submit(ids.cSlow, searchId, resultId)
      .then(
        () => 'answered',
        () => 'connection lost',
      );
    // The school takes 1.5 s: the lead is on its way to it when the gateway dies.
    for (let i = 0; i < 100 && (await count('SELECT count(*) AS n FROM leads WHERE search_id = $1', [searchId])) === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await gateway.kill();
    expect(await lost).toBe('connection lost');
    gateway = await startApp('gateway', env);
    client = new SubmitClient(gateway.url, apiKey, ids.aff);
    const retry = await keyed(key).submit(ids.cSlow, searchId, resultId);
    expect(retry.status).toBe(200);
    expect(retry.body.code).toBe('ACCEPTED');
    const stored = (await db.query<{ id: string; code: string }>('SELECT id, code FROM leads WHERE search_id = $1', [searchId])).rows;
    expect(stored).toEqual([{ id: retry.body.svc_lead_id, code: 'ACCEPTED' }]);
    expect(await received('slow', retry.body.svc_lead_id)).toBe(1);
    // And again, now from the recorded answer.
    expect((await keyed(key).submit(ids.cSlow, searchId, resultId)).body).toEqual(retry.body);
  });
});
