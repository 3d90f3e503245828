import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { buildTestCatalog } from '../support/catalog-builder';
import { call, HttpAnswer } from '../support/http';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey } from '../support/ops';
import { person, Person, SubmitClient } from '../support/submit-flow';
import { TcpProxy } from '../support/tcp-proxy';
import { TEST_AMQP_URL, TEST_DATABASE_URL, TEST_REDIS_URL, testEnv, uniqueSuffix } from '../support/test-env';

type Dependency = 'postgres' | 'redis' | 'rabbitmq';
type Mode = 'cut' | 'stall';
type Endpoint = 'search' | 'poll' | 'result submit' | 'direct post' | 'lead status' | 'dupe-check' | 'opt-out';
const ENDPOINTS: Endpoint[] = ['search', 'poll', 'result submit', 'direct post', 'lead status', 'dupe-check', 'opt-out'];
const WORKERS = ['checks', 'search-orchestrator', 'partner-adapter', 'delivery'] as const;

/**
 * What each endpoint answers while one dependency is unreachable
 * (docs/runbooks/dependency-outage.md): 503 UNAVAILABLE, except where the
 * answer needs nothing from that dependency. A poll is served from Redis (with
 * the key and the campaign owner the gateway already holds, which stay valid
 * while the Redis announcements of revocations still reach it); the lead status
 * and the pre-check read PostgreSQL only, and an opt-out is written there (its
 * notices wait in the outbox for the broker). Redis carries every call's rate
 * limit, so without it nothing is served.
 */
const SERVED_WITHOUT: Record<Dependency, Endpoint[]> = {
  postgres: ['poll'],
  redis: [],
  rabbitmq: ['poll', 'lead status', 'dupe-check', 'opt-out'],
};

/** The apps whose readiness reports each dependency. */
const USED_BY: Record<Dependency, Array<'gateway' | (typeof WORKERS)[number]>> = {
  postgres: ['gateway', ...WORKERS],
  redis: ['gateway', 'search-orchestrator', 'delivery'],
  rabbitmq: ['gateway', ...WORKERS],
};

/**
 * Every app (gateway and workers) reaches PostgreSQL, Redis and RabbitMQ
 * through TCP proxies this test controls. Each dependency is taken away in two
 * ways: cut (open connections reset, new ones refused) and stalled (a black
 * hole: connections accepted, nothing ever forwarded, so only deadlines end a
 * wait), while traffic is running. Then every endpoint answers 503 UNAVAILABLE
 * (retryable, the contract's envelope) within two seconds, or is served where
 * it does not need the missing dependency; readiness reports it, liveness does
 * not, no process exits; and once it is back a whole search, poll, submit,
 * lead status and pre-check succeed again with no restart, and every submit
 * answered PENDING during the outage gets its decision.
 */
describe('dependency outages (e2e)', () => {
  const suffix = uniqueSuffix();
  const direct = testEnv(suffix);
  const proxies: Record<Dependency, TcpProxy> = { postgres: new TcpProxy(5432), redis: new TcpProxy(6379), rabbitmq: new TcpProxy(5672) };
  const apps = {} as Record<'gateway' | (typeof WORKERS)[number], RunningApp>;
  let sandbox: RunningApp;
  let ids: ReturnType<typeof buildTestCatalog>['ids'];
  let client: SubmitClient;
  /** Submits answered PENDING during an outage: each must be decided once it is over. */
  const pendingLeads: Array<{ leadId: string; endpoint: Endpoint }> = [];

  beforeAll(async () => {
    await Promise.all(Object.values(proxies).map((p) => p.start()));
    sandbox = await startApp('sandbox', direct, 'live');
    const built = buildTestCatalog(sandbox.url);
    ids = built.ids;
    // The partner offer gets a school of its own, so a live search shows both results (one per school).
    const partnerSchool = { id: randomUUID(), name: 'Test Partner School', logo_url: null };
    built.catalog.schools.push(partnerSchool);
    built.catalog.offers.find((o) => o.id === ids.partnerOffer)!.school_id = partnerSchool.id;
    applyCatalog(built.catalog, direct);
    const limits = ['search', 'results', 'leads', 'dupe-check', 'opt-outs'].flatMap((e) => ['--limit', `${e}=60000/10000`]);
    const key = issueKey(ids.affiliateA, direct, limits).key;
    // The test's own database, Redis db and vhost, reached through the proxies' ports.
    const via = (url: string, port: number) => url.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${port}`);
    const proxied = {
      ...direct,
      DATABASE_URL: via(TEST_DATABASE_URL, proxies.postgres.port),
      REDIS_URL: via(TEST_REDIS_URL, proxies.redis.port),
      AMQP_URL: via(TEST_AMQP_URL, proxies.rabbitmq.port),
    };
    const started = await Promise.all(WORKERS.map((w) => startApp(w, proxied)));
    WORKERS.forEach((w, i) => (apps[w] = started[i]));
    apps.gateway = await startApp('gateway', proxied);
    client = new SubmitClient(apps.gateway.url, key, ids.affiliateA);
  });

  afterAll(async () => {
    // OUTAGES_LOG_DIR=<dir> keeps every app's output, for reading what happened during a failed run.
    const dir = process.env.OUTAGES_LOG_DIR;
    if (dir) for (const app of [...Object.values(apps), sandbox]) if (app) writeFileSync(join(dir, `${app.name}.log`), app.output());
    await Promise.all(Object.values(proxies).map((p) => p.restore()));
    await stopAppsAndTopology(direct);
    await Promise.all(Object.values(proxies).map((p) => p.close()));
  });

  /** One affiliate's whole journey: search, polls to the end, submit of the own offer's result, lead status, pre-check. */
  async function journey() {
    const who = person();
    const { searchId, results } = await client.searchDone(ids.campaignA, who);
    const own = results.get(ids.offer);
    const partner = results.get(ids.partnerOffer);
    expect(own).toBeDefined();
    expect(partner).toBeDefined();
    const submit = await client.submit(ids.campaignA, searchId, own.svc_result_id, { program_id: 'bsn' });
    expect(submit.status).toBe(200);
    expect(submit.body).toEqual(expect.objectContaining({ code: 'ACCEPTED', status: 'accepted', accepted: true }));
    const leadId = submit.body.svc_lead_id as string;
    const status = await client.leadStatus(leadId);
    expect(status.status).toBe(200);
    expect(status.body).toEqual(expect.objectContaining({ code: 'ACCEPTED', svc_lead_id: leadId }));
    const dupe = await dupeCheck(who);
    expect(dupe.status).toBe(200);
    expect(dupe.body.duplicate_likely).toBe(true);
    const poll = await pollOf(searchId);
    expect(poll.status).toBe(200);
    expect(poll.body).toEqual(expect.objectContaining({ processing_done: true, accepted_count: 1 }));
    return {
      who,
      searchId,
      leadId,
      spare: { resultId: partner.svc_result_id as string, answers: answersFor(partner) },
      poll: poll.body,
      status: status.body,
    };
  }
  type Journey = Awaited<ReturnType<typeof journey>>;

  interface Question {
    name: string;
    required?: boolean;
    required_when?: { program_ids?: string[] };
    options?: Array<{ value: string }>;
  }
  /** A complete submit of a result: its first program and an answer to every question that program needs. */
  function answersFor(result: { programs: Array<{ value: string }>; form_fields: Question[] }) {
    const program = result.programs[0].value;
    const answers: Record<string, string> = { program_id: program };
    for (const f of result.form_fields) {
      if (f.required || f.required_when?.program_ids?.includes(program)) answers[f.name] = f.options?.[0]?.value ?? 'yes';
    }
    return answers;
  }

  const pollOf = (searchId: string) => call(apps.gateway.url, 'GET', `/api/v1/engine/results/${searchId}`, { key: client.key });
  const dupeCheck = (who: Person) =>
    call(apps.gateway.url, 'POST', '/api/v1/engine/dupe-check', { key: client.key, body: { email: who.personal.email } });

  /** One call of an endpoint, on the state a journey left behind. */
  function hit(endpoint: Endpoint, j: Journey): Promise<HttpAnswer> {
    switch (endpoint) {
      case 'search':
        return client.search(ids.campaignA, person());
      case 'poll':
        return pollOf(j.searchId);
      case 'result submit':
        return client.submit(ids.campaignA, j.searchId, j.spare.resultId, j.spare.answers);
      case 'direct post':
        return client.directPost(ids.campaignA, ids.offer, person(), { program_id: 'bsn' });
      case 'lead status':
        return client.leadStatus(j.leadId);
      case 'dupe-check':
        return dupeCheck(j.who);
      case 'opt-out':
        // Somebody nobody sells to in this file: the journey's person stays sellable.
        return call(apps.gateway.url, 'POST', '/api/v1/engine/opt-outs', { key: client.key, body: { email: person().personal.email } });
    }
  }

  /** The contract's 503: UNAVAILABLE, retryable, Retry-After, and nothing else (no internal names), within `withinMs`. */
  function expectUnavailable(res: HttpAnswer, what: string, withinMs = 2000) {
    expect({ what, status: res.status, body: res.body }).toEqual({
      what,
      status: 503,
      body: {
        code: 'UNAVAILABLE',
        status: 'failed',
        reason: 'Service temporarily unavailable',
        success: false,
        retryable: true,
        retry_after_seconds: 1,
      },
    });
    expect(res.headers.get('retry-after')).toBe('1');
    expect({ what, ms: res.ms, within: res.ms < withinMs }).toEqual({ what, ms: res.ms, within: true });
  }

  /** An endpoint served during the outage answers exactly what it answered before. */
  function expectServed(endpoint: Endpoint, res: HttpAnswer, j: Journey) {
    expect({ endpoint, status: res.status }).toEqual({ endpoint, status: 200 });
    // The counters may have moved (traffic submitted the spare result); the results are the same.
    if (endpoint === 'poll') expect(res.body).toEqual({ ...j.poll, accepted_count: expect.any(Number) });
    if (endpoint === 'lead status') expect(res.body).toEqual(j.status);
    if (endpoint === 'dupe-check') expect(res.body.duplicate_likely).toBe(true);
    if (endpoint === 'opt-out') expect(res.body).toMatchObject({ code: 'OK', status: 'accepted', opt_out_id: expect.any(String) });
    expect(res.ms).toBeLessThan(2000);
  }

  /**
   * Traffic on every endpoint while the outage begins. Each answer is the
   * endpoint's own or the 503, never a 500 or a hang, and comes at most two
   * seconds into the outage (a call begun before it may have spent some of its
   * time before). A submit the broker had already taken is durable and will be
   * decided: it answers its decision or PENDING (202), never a 503 inviting a
   * second submit; those answered PENDING must be decided once the dependency
   * is back.
   */
  interface Seen {
    endpoint: Endpoint;
    res: HttpAnswer;
    endedAt: number;
  }
  async function traffic(j: Journey, stopAt: () => boolean): Promise<Seen[]> {
    const seen: Seen[] = [];
    const loop = async (offset: number) => {
      for (let i = offset; !stopAt(); i++) {
        const endpoint = ENDPOINTS[i % ENDPOINTS.length];
        const res = await hit(endpoint, j);
        seen.push({ endpoint, res, endedAt: Date.now() });
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await Promise.all([0, 2, 4].map(loop));
    return seen;
  }

  function expectTrafficAnswers(seen: Seen[], outageAt: number) {
    // The traffic spanned the outage's start: answered before it, refused after it.
    expect(seen.some(({ res }) => res.status === 503)).toBe(true);
    expect(seen.some(({ res }) => res.status !== 503)).toBe(true);
    for (const { endpoint, res, endedAt } of seen) {
      const startedAt = endedAt - res.ms;
      const intoOutage = endedAt - Math.max(startedAt, outageAt);
      expect({ endpoint, status: res.status, ms: res.ms, intoOutage, within: intoOutage < 2000 }).toEqual(
        expect.objectContaining({ endpoint, within: true }),
      );
      if (res.status === 503) {
        expectUnavailable(res, `${endpoint} during the outage's start`, startedAt < outageAt ? Infinity : 2000);
        continue;
      }
      const pending = (r: HttpAnswer) => r.status === 202 && r.body?.code === 'PENDING' && r.body?.status === 'pending';
      const ok: Record<Endpoint, (r: HttpAnswer) => boolean> = {
        search: (r) => r.status === 200 && r.body?.code === 'OK',
        poll: (r) => r.status === 200 && r.body?.code === 'OK',
        // The journey's spare result is submitted again and again: accepted once, then refused as a repost.
        'result submit': (r) => (r.status === 200 && ['ACCEPTED', 'DUPLICATE'].includes(r.body?.code)) || pending(r),
        'direct post': (r) => (r.status === 200 && r.body?.code === 'ACCEPTED') || pending(r),
        'lead status': (r) => r.status === 200 && r.body?.code === 'ACCEPTED',
        'dupe-check': (r) => r.status === 200 && r.body?.duplicate_likely === true,
        'opt-out': (r) => r.status === 200 && r.body?.code === 'OK',
      };
      expect({ endpoint, status: res.status, body: res.body, fine: ok[endpoint](res) }).toEqual(
        expect.objectContaining({ endpoint, fine: true }),
      );
      if (pending(res)) pendingLeads.push({ leadId: res.body.svc_lead_id as string, endpoint });
    }
  }

  async function eventually(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (await check().catch(() => false)) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`${what}: not met within ${ms} ms`);
  }

  const health = (app: RunningApp, probe: 'live' | 'ready') => call(app.managementUrl, 'GET', `/health/${probe}`);

  function expectAllRunning() {
    for (const app of [...Object.values(apps), sandbox]) {
      expect({ app: app.name, exitCode: app.child.exitCode, signal: app.child.signalCode }).toEqual({
        app: app.name,
        exitCode: null,
        signal: null,
      });
    }
  }

  let last: Journey | undefined;

  it('serves a whole journey with every dependency up', async () => {
    last = await journey();
    for (const app of Object.values(apps)) expect((await health(app, 'ready')).status).toBe(200);
  });

  it.each([
    ['postgres', 'cut'],
    ['postgres', 'stall'],
    ['redis', 'cut'],
    ['redis', 'stall'],
    ['rabbitmq', 'cut'],
    ['rabbitmq', 'stall'],
  ] as Array<[Dependency, Mode]>)(
    '%s %s: 503 or served within 2 s on every endpoint, nothing exits, all recovers without a restart',
    async (dep, mode) => {
      last ??= await journey(); // when run alone (-t)
      const j = last;
      // Traffic runs across the moment the dependency goes away.
      let stop = false;
      const running = traffic(j, () => stop);
      await new Promise((r) => setTimeout(r, 300));
      const outageAt = Date.now();
      await proxies[dep][mode]();
      try {
        await new Promise((r) => setTimeout(r, 1500));
        stop = true;
        expectTrafficAnswers(await running, outageAt);

        // Every endpoint, twice: 503 within 2 s, or served as before where the dependency is not needed.
        for (let round = 0; round < 2; round++) {
          for (const endpoint of ENDPOINTS) {
            const res = await hit(endpoint, j);
            if (SERVED_WITHOUT[dep].includes(endpoint)) expectServed(endpoint, res, j);
            else expectUnavailable(res, `${endpoint} without ${dep}`);
          }
        }

        // What needs no dependency is answered as usual: a call without a key, an unknown route.
        const noKey = await call(apps.gateway.url, 'POST', '/api/v1/engine/search', { body: {} });
        expect([noKey.status, noKey.body?.code]).toEqual([401, 'AUTH_REQUIRED']);
        const unknown = await call(apps.gateway.url, 'GET', '/api/v1/engine/nothing-here', { key: client.key });
        expect([unknown.status, unknown.body?.code]).toEqual([404, 'NOT_FOUND']);

        // Operators see it: the gateway's metrics say which dependency is down.
        const metrics = await call(apps.gateway.managementUrl, 'GET', '/metrics');
        expect(metrics.status).toBe(200);
        expect(metrics.text).toMatch(new RegExp(`gateway_dependency_up\\{[^}]*dependency="${dep}"[^}]*\\} 0`));

        // Readiness says which dependency is missing; liveness stays up; every process runs.
        for (const name of USED_BY[dep]) {
          await eventually(`${name} not ready without ${dep}`, async () => {
            const ready = await health(apps[name], 'ready');
            return ready.status === 503 && ready.body?.checks?.[dep]?.status === 'down';
          });
        }
        for (const app of Object.values(apps)) expect((await health(app, 'live')).status).toBe(200);
        expectAllRunning();
      } finally {
        stop = true;
        await running.catch(() => undefined);
        await proxies[dep].restore();
      }

      // Back without a restart: every app ready, the whole journey works, PENDING submits are decided.
      for (const app of Object.values(apps))
        await eventually(`${app.name} ready again after ${dep}`, async () => (await health(app, 'ready')).status === 200);
      // The gateway is ready only once its own probes see the dependency again: ready means it serves.
      expect((await call(apps.gateway.managementUrl, 'GET', '/metrics')).text).toMatch(
        new RegExp(`gateway_dependency_up\\{[^}]*dependency="${dep}"[^}]*\\} 1`),
      );
      let again: Journey | undefined;
      await eventually(`a whole journey after ${dep} ${mode}`, async () => {
        again = await journey();
        return true;
      });
      last = again!;
      for (const { leadId, endpoint } of pendingLeads.splice(0)) {
        const final = await client.finalStatus(leadId, 30_000);
        const code = endpoint === 'direct post' ? 'ACCEPTED' : expect.stringMatching(/^(ACCEPTED|DUPLICATE)$/);
        expect({ leadId, status: final.status, code: final.body?.code }).toEqual({ leadId, status: 200, code });
      }
      expectAllRunning();
    },
  );
});
