import { randomUUID } from 'node:crypto';
import { buildTestCatalog } from '../support/catalog-builder';
import { call, HttpAnswer } from '../support/http';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey } from '../support/ops';
import { testEnv, uniqueSuffix } from '../support/test-env';

/**
 * The contract's per-key, per-endpoint token bucket, against the built gateway
 * and the real Redis. Requests carry an invalid body: the limit is taken before
 * validation, so every call counts and nothing is stored.
 */
describe('rate limits (e2e)', () => {
  const env = testEnv(uniqueSuffix());
  const { ids, catalog } = buildTestCatalog();
  let gateway: RunningApp;

  beforeAll(async () => {
    applyCatalog(catalog, env);
    gateway = await startApp('gateway', env);
  });
  afterAll(() => stopAppsAndTopology(env));

  const searchCall = (key: string) => call(gateway.url, 'POST', '/api/v1/engine/search', { key, body: {} });
  const burstOf = async (n: number, make: () => Promise<HttpAnswer>) => Promise.all(Array.from({ length: n }, make));
  const statuses = (answers: HttpAnswer[]) => answers.map((a) => a.status).sort();
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('search (60/min, burst 10): exactly the burst at once, then one per second', async () => {
    const { key } = issueKey(ids.affiliateA, env);
    const first = await burstOf(14, () => searchCall(key));
    const admitted = first.filter((a) => a.status === 400).length;
    // At most one token can refill while 14 requests are in flight (1 per second).
    expect(admitted).toBeGreaterThanOrEqual(10);
    expect(admitted).toBeLessThanOrEqual(11);
    const refused = first.find((a) => a.status === 429)!;
    expect(refused.body).toEqual(
      expect.objectContaining({
        code: 'RATE_LIMITED',
        status: 'failed',
        reason: 'Too many requests',
        retryable: true,
        retry_after_seconds: 1,
      }),
    );
    expect(refused.headers.get('retry-after')).toBe('1');

    // Drain, then each refill interval (1 s) admits exactly one more.
    while ((await searchCall(key)).status !== 429);
    for (let round = 0; round < 2; round += 1) {
      await sleep(1050);
      expect(statuses(await burstOf(3, () => searchCall(key)))).toEqual([400, 429, 429]);
    }
  });

  it('opt-outs (30/min, burst 10 by default: any key may opt out any person): over the burst, 429 with the envelope and Retry-After', async () => {
    const { key } = issueKey(ids.affiliateA, env);
    const answers = await burstOf(13, () => call(gateway.url, 'POST', '/api/v1/engine/opt-outs', { key, body: {} }));
    const admitted = answers.filter((a) => a.status === 400).length;
    // At most one token (one per 2 s) can refill while 13 requests are in flight.
    expect(admitted).toBeGreaterThanOrEqual(10);
    expect(admitted).toBeLessThanOrEqual(11);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.body).toEqual({
      code: 'RATE_LIMITED',
      status: 'failed',
      reason: 'Too many requests',
      success: false,
      retryable: true,
      retry_after_seconds: Number(refused.headers.get('retry-after')),
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(2);
    // A key issued with its own budget keeps it.
    const roomy = issueKey(ids.affiliateA, env, ['--limit', 'opt-outs=600/30']).key;
    const many = await burstOf(20, () => call(gateway.url, 'POST', '/api/v1/engine/opt-outs', { key: roomy, body: {} }));
    expect(many.every((a) => a.status === 400)).toBe(true);
  });

  it('each endpoint has its own budget, and each key its own', async () => {
    const { key } = issueKey(ids.affiliateA, env);
    const other = issueKey(ids.affiliateA, env).key;
    await burstOf(12, () => searchCall(key));
    expect((await searchCall(key)).status).toBe(429);
    expect((await searchCall(other)).status).toBe(400);
    const polls = await burstOf(20, () => call(gateway.url, 'GET', '/api/v1/engine/results/not-a-uuid', { key }));
    expect(polls.every((p) => p.status === 404)).toBe(true);
  });

  it('a key override changes the burst and the refill interval', async () => {
    const { key } = issueKey(ids.affiliateA, env, ['--limit', 'search=120/3']);
    const first = await burstOf(6, () => searchCall(key));
    expect(first.filter((a) => a.status === 400).length).toBeGreaterThanOrEqual(3);
    expect(first.filter((a) => a.status === 400).length).toBeLessThanOrEqual(4);
    while ((await searchCall(key)).status !== 429);
    // 120/min refills one token each 0.5 s.
    await sleep(550);
    expect(statuses(await burstOf(2, () => searchCall(key)))).toEqual([400, 429]);
    await sleep(550);
    expect(statuses(await burstOf(2, () => searchCall(key)))).toEqual([400, 429]);
  });

  it('results (token and search read in one Redis round trip): over the burst, 429 and nothing read', async () => {
    const { key } = issueKey(ids.affiliateA, env, ['--limit', 'results=60/3']);
    const poll = () => call(gateway.url, 'GET', `/api/v1/engine/results/${randomUUID()}`, { key });
    const answers = await burstOf(6, poll);
    const unknown = answers.filter((a) => a.status === 404);
    expect(unknown.length).toBeGreaterThanOrEqual(3);
    expect(unknown.length).toBeLessThanOrEqual(4);
    expect(unknown[0].headers.get('x-ratelimit-limit')).toBe('60/min; burst=3');
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBe(6 - unknown.length);
    expect(refused[0].body).toEqual(expect.objectContaining({ code: 'RATE_LIMITED', retryable: true, retry_after_seconds: 1 }));
    expect(refused[0].headers.get('x-ratelimit-remaining')).toBeNull();
    // A malformed id reads nothing but still takes a token.
    while ((await poll()).status !== 429);
    await sleep(1050);
    expect(statuses(await burstOf(2, () => call(gateway.url, 'GET', '/api/v1/engine/results/not-a-uuid', { key })))).toEqual([404, 429]);
  });

  it('dupe-check (30/min, burst 10): 429 carries Retry-After of the 2 s refill', async () => {
    const { key } = issueKey(ids.affiliateA, env);
    const answers = await burstOf(12, () => call(gateway.url, 'POST', '/api/v1/engine/dupe-check', { key, body: {} }));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(Number(refused[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused[0].headers.get('retry-after'))).toBeLessThanOrEqual(2);
    expect(refused[0].body.retry_after_seconds).toBe(Number(refused[0].headers.get('retry-after')));
  });
});
