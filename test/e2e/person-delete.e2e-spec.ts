import { randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { Client } from 'pg';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { redisKeysHolding, tableCount, tablesHolding } from '../support/canaries';
import { applyCatalog, issueKey, runOps } from '../support/ops';
import { person, SubmitClient } from '../support/submit-flow';
import { TEST_DATABASE_URL, TEST_REDIS_URL, testEnv, uniqueSuffix } from '../support/test-env';
import { campaign, catalogOffer, partnerOffer } from '../support/catalog-builder';
import { keyStoreSealer } from '../support/medium-world';
import { openedRow } from '../support/sealed-rows';

/**
 * A consumer's deletion request end to end: a person searches live and in
 * test mode through the running apps, is sold to one school, refused by
 * another that quotes them back, shown a partner network's result; then the
 * built CLI's `person delete`, by a phone written otherwise than it was sent
 * and by the email. Their email, phone and last name (canaries: nobody else
 * has them) must then be in no table or partition of the database, no Redis
 * key of the run and no line an app logged; the consent chain must still
 * verify, and the person searching again must be shown nothing.
 */
describe('person delete (e2e)', () => {
  const suffix = uniqueSuffix();
  const env = testEnv(suffix);
  const ids = {
    aff: randomUUID(),
    sAcc: randomUUID(),
    sRej: randomUUID(),
    sPar: randomUUID(),
    oAcc: randomUUID(),
    oRej: randomUUID(),
    partner: randomUUID(),
    pOffer: randomUUID(),
    camp: randomUUID(),
  };
  const school = (name: string) => `del${suffix}-${name}`;
  const lead = person();
  const p = lead.personal;
  const canaries = [p.email, p.phone, p.last_name];
  const apps: RunningApp[] = [];
  let client: SubmitClient;
  let db: Client;
  let redis: Redis;
  let runs: Array<{ code: number; stdout: string; stderr: string }>;
  let quoting: Server;
  let sealedRecords: ReadonlyArray<readonly ['searches' | 'leads', string]> = [];

  /**
   * A school system (not ours) that refuses every lead quoting the person back,
   * in the sandbox school protocol: the buyer's words are stored for operators
   * (delivery_attempts.detail), so they are the person's contact data too.
   */
  async function quotingSchool(): Promise<string> {
    quoting = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const who = (JSON.parse(body) as { lead: { personal: Record<string, string> } }).lead.personal;
        const reason = `Already enrolled: ${who.first_name} ${who.last_name} <${who.email}>, call ${who.phone}`;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result: 'rejected', reason }));
      });
    });
    await new Promise<void>((resolve) => quoting.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(quoting.address() as AddressInfo).port}/leads`;
  }

  const own = (offerId: string, schoolId: string, name: string, url: string) =>
    catalogOffer(offerId, schoolId, name, {
      source: 'own',
      priority: 5,
      price: 45,
      tcpa_text: `I agree that ${name} may contact me.`,
      programs: [{ value: 'gen', label: 'General Studies' }],
      delivery: { adapter: 'sandbox', url, timeout_ms: 6000 },
    });

  beforeAll(async () => {
    apps.push(await startApp('sandbox', env, 'live'));
    const sandbox = apps[0];
    applyCatalog(
      {
        affiliates: [{ id: ids.aff, name: 'Deletion E2E', status: 'active' }],
        schools: [
          { id: ids.sAcc, name: 'Accepting U', logo_url: null },
          { id: ids.sRej, name: 'Quoting College', logo_url: null },
          { id: ids.sPar, name: 'Partner School', logo_url: null },
        ],
        partners: [
          {
            id: ids.partner,
            name: 'Deletion partner',
            adapter: 'sandbox',
            base_url: `${sandbox.url}/partners/${school('partner')}?match=all&outcome=accept`,
            timeout_ms: 5000,
          },
        ],
        offers: [
          own(ids.oAcc, ids.sAcc, 'Accepting Offer', `${sandbox.url}/schools/${school('accepting')}/leads?outcome=accept`),
          own(ids.oRej, ids.sRej, 'Quoting Offer', await quotingSchool()),
          partnerOffer(ids.pOffer, ids.sPar, 'Partner offer', ids.partner, `ext-${ids.pOffer.slice(0, 8)}`, { result_ttl_seconds: 600 }),
        ],
        campaigns: [
          campaign(ids.camp, ids.aff, 'Deletion E2E', [
            { offer_id: ids.oAcc, payout: 12 },
            { offer_id: ids.oRej, payout: 8 },
            { offer_id: ids.pOffer, payout: 3 },
          ]),
        ],
      },
      env,
    );
    const key = issueKey(ids.aff, env).key;
    apps.push(
      ...(await Promise.all([
        startApp('checks', env),
        startApp('partner-adapter', env),
        startApp('search-orchestrator', env),
        startApp('delivery', env),
      ])),
    );
    const gateway = await startApp('gateway', env);
    apps.push(gateway);
    client = new SubmitClient(gateway.url, key, ids.aff);
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });

    const live = await client.searchDone(ids.camp, lead);
    const accepted = await client.submit(ids.camp, live.searchId, live.results.get(ids.oAcc).svc_result_id, { program_id: 'gen' });
    expect(accepted.body).toMatchObject({ code: 'ACCEPTED' });
    const refused = await client.submit(ids.camp, live.searchId, live.results.get(ids.oRej).svc_result_id, { program_id: 'gen' });
    expect(refused.body).toMatchObject({ code: 'BUYER_REJECTED' });
    const test = await client.searchDone(ids.camp, lead, { svc_is_test_lead: true });
    const held = await client.submit(ids.camp, test.searchId, test.results.get(ids.oAcc).svc_result_id, { program_id: 'gen' });
    expect(held.body).toMatchObject({ code: 'TEST_LEAD_HELD' });
    // Stored sealed (docs/security.md): no table holds the person in clear, not even the buyer's words (masked when
    // stored); their searches and leads open to the person's data until the deletion destroys their keys.
    expect(await tablesHolding(db, canaries)).toEqual({});
    sealedRecords = [
      ...[live.searchId, test.searchId].map((id) => ['searches', id] as const),
      ...[accepted, refused, held].map((r) => ['leads', r.body.svc_lead_id as string] as const),
    ];
    for (const [table, id] of sealedRecords) expect((await openedRow(db, table, id))!.lead.personal.email).toBe(p.email);
    const attempt = await db.query(`SELECT detail FROM delivery_attempts WHERE lead_id = $1`, [refused.body.svc_lead_id]);
    expect(attempt.rows[0].detail).toContain('[erased]');

    const phone = `+1 (${p.phone.slice(0, 3)}) ${p.phone.slice(3, 6)}.${p.phone.slice(6)}`;
    runs = [
      runOps(['person', 'delete', '--phone', phone, '--reference', `e2e-${suffix}`, '--json'], env),
      runOps(['person', 'delete', '--email', p.email.toUpperCase(), '--json'], env),
    ];
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    redis?.disconnect();
    quoting?.closeAllConnections();
    await new Promise((resolve) => (quoting ? quoting.close(resolve) : resolve(undefined)));
    await stopAppsAndTopology(env);
  });

  it('erases by the phone written otherwise, then finds nothing new by the email', () => {
    const [byPhone, byEmail] = runs.map((r) => {
      expect([r.code, r.stderr]).toEqual([0, expect.stringContaining('places searched')]);
      return JSON.parse(r.stdout);
    });
    expect(byPhone).toMatchObject({
      request: { recorded_now: true, suppressed: 1, notices: 1 },
      erased: {
        searches: { count: 2, live: 1, test: 1 },
        leads: { count: 3 },
        delivery_attempt_details: 0,
        crypto_shredded: { searches: 2, leads: 3, dead_letters: 0 },
      },
      kept: { consent_evidence: 2 },
    });
    expect(byPhone.erased.redis_keys).toBeGreaterThanOrEqual(1);
    expect(byEmail).toMatchObject({ nothing_new: true, request: { recorded_now: true, suppressed: 1 } });
    for (const r of runs) for (const c of canaries) expect(`${r.stdout}${r.stderr}`.toLowerCase()).not.toContain(c.toLowerCase());
  });

  it("leaves the person's email, phone and name in no table or partition of the database", async () => {
    expect(await tableCount(db)).toBeGreaterThan(40);
    expect(await tablesHolding(db, canaries)).toEqual({});
  });

  it('leaves their searches and leads unreadable: the data keys that sealed them are destroyed', async () => {
    expect(sealedRecords).toHaveLength(5);
    const cold = keyStoreSealer(TEST_DATABASE_URL, { cached: false });
    for (const [table, id] of sealedRecords) {
      const { rows } = await db.query(`SELECT contact FROM ${table} WHERE id = $1`, [id]);
      expect(await cold.tryOpenAll([rows[0].contact])).toEqual([null]);
    }
  });

  it('leaves them in no Redis key of this run', async () => {
    const { keys, scanned } = await redisKeysHolding(redis, env.REDIS_KEY_PREFIX, canaries);
    expect(scanned).toBeGreaterThan(0);
    expect(keys).toEqual([]);
  });

  it('never had them in a line an app logged', () => {
    expect(apps.map((a) => a.app)).toEqual(['sandbox', 'checks', 'partner-adapter', 'search-orchestrator', 'delivery', 'gateway']);
    for (const app of apps) {
      const output = app.output().toLowerCase();
      for (const c of canaries) expect([app.app, output.includes(c.toLowerCase())]).toEqual([app.app, false]);
    }
  });

  it('leaves the consent chain valid', () => {
    const verify = runOps(['consent', 'verify', '--json'], env);
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ intact: true, break: null });
  });

  it('shows the person searching again no result, and stores that search without their contact data', async () => {
    const again = await client.searchDone(ids.camp, lead);
    expect(again.body.offers).toEqual([]);
    expect(await tablesHolding(db, canaries)).toEqual({});
  });
});
