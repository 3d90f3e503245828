import { buildTestCatalog, searchBody } from '../support/catalog-builder';
import { call } from '../support/http';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey } from '../support/ops';
import { TcpProxy } from '../support/tcp-proxy';
import { TEST_AMQP_URL, TEST_DATABASE_URL, TEST_REDIS_URL, testEnv, uniqueSuffix } from '../support/test-env';

/**
 * The gateway reaches PostgreSQL, Redis and RabbitMQ through TCP proxies this
 * test controls. While one is cut (connections refused) or stalled (accepted,
 * never answered), the gateway answers 503 UNAVAILABLE
 * (retryable) within two seconds and keeps running; once it is back, the
 * gateway serves again without a restart.
 */
describe('dependency outages (e2e)', () => {
  const suffix = uniqueSuffix();
  const direct = testEnv(suffix);
  const { ids, catalog } = buildTestCatalog();
  const proxies = { postgres: new TcpProxy(5432), redis: new TcpProxy(6379), rabbitmq: new TcpProxy(5672) };
  let gateway: RunningApp;
  let key: string;

  beforeAll(async () => {
    await Promise.all(Object.values(proxies).map((p) => p.start()));
    applyCatalog(catalog, direct);
    key = issueKey(ids.affiliateA, direct, ['--limit', 'search=6000/1000', '--limit', 'results=6000/1000', '--limit', 'leads=6000/1000']).key;
    await startApp('checks', direct);
    await startApp('search-orchestrator', direct);
    await startApp('delivery', direct);
    // The test's own database, Redis db and vhost, reached through the proxies' ports.
    const via = (url: string, port: number) => url.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${port}`);
    gateway = await startApp('gateway', {
      ...direct,
      DATABASE_URL: via(TEST_DATABASE_URL, proxies.postgres.port),
      REDIS_URL: via(TEST_REDIS_URL, proxies.redis.port),
      AMQP_URL: via(TEST_AMQP_URL, proxies.rabbitmq.port),
    });
  });

  afterAll(async () => {
    await stopAppsAndTopology(direct);
    await Promise.all(Object.values(proxies).map((p) => p.close()));
  });

  const search = () => call(gateway.url, 'POST', '/api/v1/engine/search', { key, body: searchBody(ids.campaignA, ids.affiliateA) });
  const poll = (id: string) => call(gateway.url, 'GET', `/api/v1/engine/results/${id}`, { key });
  const base = searchBody(ids.campaignA, ids.affiliateA);
  const post = () =>
    call(gateway.url, 'POST', '/api/v1/engine/leads', {
      key,
      body: { svc_campaign_id: ids.campaignA, svc_affiliate_id: ids.affiliateA, svc_offer_id: ids.offer, lead: base.lead, tracking: base.tracking, tcpa_consent: true, svc_is_test_lead: true },
    });

  async function eventually(what: () => Promise<boolean>, ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (await what()) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error('condition not met in time');
  }

  function expectUnavailable(res: Awaited<ReturnType<typeof call>>) {
    expect(res.status).toBe(503);
    expect(res.body).toEqual(expect.objectContaining({ code: 'UNAVAILABLE', status: 'failed', retryable: true }));
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.ms).toBeLessThan(2000);
  }

  it.each([
    ['postgres', 'cut', ['search', 'poll', 'leads']],
    ['redis', 'cut', ['search', 'poll', 'leads']],
    ['rabbitmq', 'cut', ['search', 'leads']],
    ['postgres', 'stall', ['search', 'poll', 'leads']],
    ['redis', 'stall', ['search', 'poll', 'leads']],
  ] as const)('%s %s: 503 UNAVAILABLE within 2 s, then serves again', async (name, mode, endpoints) => {
    const ok = await search();
    expect(ok.status).toBe(200);
    const searchId = ok.body.svc_lead_id as string;

    await proxies[name][mode]();
    try {
      for (let i = 0; i < 3; i += 1) {
        if (endpoints.includes('search' as never)) expectUnavailable(await search());
        if (endpoints.includes('poll' as never)) expectUnavailable(await poll(searchId));
        if (endpoints.includes('leads' as never)) expectUnavailable(await post());
      }
      const ready = await call(gateway.url, 'GET', '/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.checks[name].status).toBe('down');
      expect(gateway.child.exitCode).toBeNull();
    } finally {
      await proxies[name].restore();
    }

    await eventually(async () => (await search()).status === 200);
    expect((await poll(searchId)).status).toBe(200);
    await eventually(async () => (await post()).body?.code === 'TEST_LEAD_HELD');
    await eventually(async () => (await call(gateway.url, 'GET', '/health/ready')).status === 200);
  });
});
