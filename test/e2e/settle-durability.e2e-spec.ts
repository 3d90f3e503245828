import { randomUUID } from 'node:crypto';
import { buildTestCatalog, ownOffer } from '../support/catalog-builder';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey } from '../support/ops';
import { person, receivedBySchool, SubmitClient } from '../support/submit-flow';
import { TcpProxy } from '../support/tcp-proxy';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../support/test-env';

/**
 * The buyer's answer exists only in the delivery worker until it is booked.
 * Here delivery reaches PostgreSQL through a proxy the test cuts while the
 * school is answering, and restores a few seconds later: the school's
 * acceptance must still be booked (ACCEPTED, payout, the school received the
 * lead once), not decided as an interrupted delivery.
 */
describe('booking a buyer answer survives a PostgreSQL blip (e2e)', () => {
  const suffix = uniqueSuffix();
  const env = testEnv(suffix);
  const proxy = new TcpProxy(5432);
  const school = `settle-${suffix}`;
  let sandbox: RunningApp;
  let client: SubmitClient;
  let ids: ReturnType<typeof buildTestCatalog>['ids'];
  const slowOffer = randomUUID();

  beforeAll(async () => {
    await proxy.start();
    sandbox = await startApp('sandbox', env, 'live');
    const built = buildTestCatalog(sandbox.url);
    ids = built.ids;
    const catalog = built.catalog as unknown as { offers: unknown[]; campaigns: Array<{ offers: unknown[] }> };
    catalog.offers.push(
      ownOffer(slowOffer, ids.school, 'Slow School', `${sandbox.url}/schools/${school}/leads?outcome=accept&delay_ms=1500`),
    );
    catalog.campaigns[0].offers.push({ offer_id: slowOffer, payout: 25 });
    applyCatalog(catalog, env);
    const key = issueKey(ids.affiliateA, env, ['--limit', 'leads=6000/1000']).key;
    await startApp('checks', env);
    await startApp('delivery', { ...env, DATABASE_URL: TEST_DATABASE_URL.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${proxy.port}`) });
    const gateway = await startApp('gateway', env);
    client = new SubmitClient(gateway.url, key, ids.affiliateA);
  });

  afterAll(async () => {
    await proxy.restore().catch(() => undefined);
    await stopAppsAndTopology(env);
    await proxy.close();
  });

  it('an acceptance that arrives while PostgreSQL is away is booked once it is back', async () => {
    const posted = client.directPost(ids.campaignA, slowOffer, person(), { program_id: 'gen' });
    // The school has the lead (recorded on arrival, answered 1.5 s later): cut PostgreSQL now, for 3 s.
    const deadline = Date.now() + 10_000;
    while ((await receivedBySchool(sandbox.url, school)).size === 0) {
      if (Date.now() > deadline) throw new Error('the school never received the lead');
      await new Promise((r) => setTimeout(r, 50));
    }
    await proxy.cut();
    await new Promise((r) => setTimeout(r, 3_000));
    await proxy.restore();

    const first = await posted;
    expect([200, 202]).toContain(first.status);
    const leadId = first.body.svc_lead_id as string;
    const final = await client.finalStatus(leadId, 30_000);
    expect(final.body).toEqual(expect.objectContaining({ code: 'ACCEPTED', reason: 'Lead accepted', payout: 25 }));
    const received = await receivedBySchool(sandbox.url, school);
    expect([...received.entries()]).toEqual([[leadId, 1]]);
  });

  it('a submit that delivery dead-letters (PostgreSQL away through all its tries) answers PENDING, never a 500', async () => {
    await proxy.cut();
    try {
      const res = await client.directPost(ids.campaignA, slowOffer, person(), { program_id: 'gen' });
      expect(res.status).toBe(202);
      expect(res.body).toEqual(expect.objectContaining({ code: 'PENDING', status: 'pending', success: true }));
      expect(res.body.svc_lead_id).toEqual(expect.any(String));
    } finally {
      await proxy.restore();
    }
  });
});
