import { Client } from 'pg';
import { buildTestCatalog, searchBody } from '../support/catalog-builder';
import { call } from '../support/http';
import { startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey } from '../support/ops';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../support/test-env';

/**
 * With no search-orchestrator consuming, a search waits its reply deadline and
 * answers 503 UNAVAILABLE (retryable); when the orchestrator comes back, the
 * request the gateway gave up on is dropped, not stored as an orphan search.
 */
describe('search-orchestrator down (e2e)', () => {
  const env = testEnv(uniqueSuffix(), { SEARCH_REPLY_TIMEOUT_MS: '1000' });
  const { ids, catalog } = buildTestCatalog();
  let db: Client;

  beforeAll(async () => {
    applyCatalog(catalog, env);
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
  });
  afterAll(async () => {
    await stopAppsAndTopology(env);
    await db.end();
  });

  it('answers 503 after the reply deadline and never stores the abandoned search', async () => {
    const key = issueKey(ids.affiliateA, env).key;
    await startApp('checks', env);
    const gateway = await startApp('gateway', env);
    // The first start declares the topology, so the request waits in the orchestrator's queue.
    const orchestrator = await startApp('search-orchestrator', env);
    await orchestrator.stop();

    const res = await call(gateway.url, 'POST', '/api/v1/engine/search', { key, body: searchBody(ids.campaignA, ids.affiliateA) });
    expect(res.status).toBe(503);
    expect(res.body).toEqual(expect.objectContaining({ code: 'UNAVAILABLE', retryable: true }));
    expect(res.ms).toBeGreaterThanOrEqual(900);
    expect(res.ms).toBeLessThan(2500);

    const back = await startApp('search-orchestrator', { ...env, LOG_LEVEL: 'info' });
    const deadline = Date.now() + 10_000;
    while (!back.output().includes('search request expired') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(back.output()).toContain('search request expired');
    const stored = await db.query('SELECT count(*)::int AS n FROM searches WHERE campaign_id = $1', [ids.campaignA]);
    expect(stored.rows[0].n).toBe(0);

    const ok = await call(gateway.url, 'POST', '/api/v1/engine/search', { key, body: searchBody(ids.campaignA, ids.affiliateA) });
    expect(ok.status).toBe(200);
  });
});
