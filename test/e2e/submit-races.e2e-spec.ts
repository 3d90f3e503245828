import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { loadConfig } from '../../libs/config/src';
import { MESSAGE_TYPES, SubmitRequestedV1 } from '../../libs/contracts/src';
import { AmqpConnection, topologyFor } from '../../libs/messaging/src';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey } from '../support/ops';
import { person, receivedBySchool, SubmitClient } from '../support/submit-flow';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../support/test-env';
import { campaign, catalogOffer } from '../support/catalog-builder';

/**
 * The sale invariants under concurrency and failure, against the running
 * services: a cap is never exceeded, a lead is sold at most 3 times, a
 * true_exclusive sale excludes every other, each accepted lead reaches its
 * school exactly once, and a delivery worker killed mid-delivery still leaves
 * one decision and at most one delivery.
 */
describe('submit races and a killed delivery worker (e2e)', () => {
  const suffix = uniqueSuffix();
  const env = testEnv(suffix, { SUBMIT_ANSWER_TIMEOUT_MS: '1500' });
  const id = () => randomUUID();
  const ids = {
    aff: id(),
    sCap: id(),
    s1: id(),
    s2: id(),
    s3: id(),
    s4: id(),
    s5: id(),
    sTe: id(),
    sSlow: id(),
    oCap: id(),
    o1: id(),
    o2: id(),
    o3: id(),
    o4: id(),
    o5: id(),
    oTe: id(),
    oSlow: id(),
    cCap: id(),
    cShared: id(),
    cSlow: id(),
  };
  const school = (name: string) => `race${suffix}-${name}`;
  const schoolNames = ['cap', 'o1', 'o2', 'o3', 'o4', 'o5', 'te', 'slow'];
  let sandbox: RunningApp;
  let delivery: RunningApp;
  let client: SubmitClient;
  let db: Client;
  let apiKeyId: string;
  let amqp: AmqpConnection;

  const own = (offerId: string, schoolId: string, name: string, extra: Record<string, unknown> = {}, query = 'outcome=accept') =>
    catalogOffer(offerId, schoolId, name, {
      source: 'own',
      priority: 5,
      price: 30,
      tcpa_text: 'I agree.',
      result_ttl_seconds: 900,
      delivery: { adapter: 'sandbox', url: `${sandbox.url}/schools/${school(name)}/leads?${query}`, timeout_ms: 4000 },
      ...extra,
    });

  beforeAll(async () => {
    sandbox = await startApp('sandbox', env, 'live');
    applyCatalog(
      {
        affiliates: [{ id: ids.aff, name: 'Race', status: 'active', dupe_check: false }],
        schools: Object.entries(ids)
          .filter(([k]) => k.startsWith('s'))
          .map(([k, v]) => ({ id: v, name: `Race ${k}` })),
        offers: [
          own(ids.oCap, ids.sCap, 'cap', { caps: [{ period: 'total', limit: 10 }] }),
          own(ids.o1, ids.s1, 'o1'),
          own(ids.o2, ids.s2, 'o2'),
          own(ids.o3, ids.s3, 'o3'),
          own(ids.o4, ids.s4, 'o4'),
          own(ids.o5, ids.s5, 'o5'),
          own(ids.oTe, ids.sTe, 'te', { offer_type: 'true_exclusive' }),
          own(ids.oSlow, ids.sSlow, 'slow', {}, 'outcome=accept&delay_ms=2500'),
        ],
        campaigns: [
          campaign(ids.cCap, ids.aff, 'Cap', [{ offer_id: ids.oCap, payout: 3 }]),
          campaign(
            ids.cShared,
            ids.aff,
            'Shared',
            [ids.o1, ids.o2, ids.o3, ids.o4, ids.o5, ids.oTe].map((o) => ({ offer_id: o, payout: 2 })),
          ),
          campaign(ids.cSlow, ids.aff, 'Slow', [{ offer_id: ids.oSlow, payout: 2 }]),
        ],
      },
      env,
    );
    const roomy = ['--limit', 'search=60000/1000', '--limit', 'results=60000/1000', '--limit', 'leads=60000/1000'];
    const issued = issueKey(ids.aff, env, roomy);
    const key = issued.key;
    apiKeyId = issued.id;
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    const [, , , d] = await Promise.all([
      startApp('checks', env),
      startApp('partner-adapter', env),
      startApp('search-orchestrator', env),
      startApp('delivery', env),
    ]);
    delivery = d;
    client = new SubmitClient((await startApp('gateway', env)).url, key, ids.aff);
    const config = loadConfig('gateway', env);
    amqp = new AmqpConnection(config, { topology: topologyFor(config) });
    await amqp.start();
  });

  afterAll(async () => {
    await amqp?.close();
    await stopAppsAndTopology(env);
    await db?.end();
  });

  /** Every accepted lead of ours reached its school exactly once, and no refused one reached it. */
  async function expectDeliveredOnce(accepted: string[], refused: string[]) {
    const received = new Map<string, number>();
    for (const name of schoolNames)
      for (const [k, n] of await receivedBySchool(sandbox.url, school(name))) received.set(k, (received.get(k) ?? 0) + n);
    for (const leadId of accepted) expect([leadId, received.get(leadId)]).toEqual([leadId, 1]);
    for (const leadId of refused) expect([leadId, received.get(leadId) ?? 0]).toEqual([leadId, 0]);
  }

  it('50 concurrent submits against an offer with a cap of 10 accept exactly 10', async () => {
    const searches = [];
    for (let i = 0; i < 50; i++) searches.push(await client.searchDone(ids.cCap, person()));
    const answers = await Promise.all(searches.map((s) => client.submit(ids.cCap, s.searchId, s.results.get(ids.oCap).svc_result_id)));
    const codes = answers.map((r) => r.body.code);
    expect(codes.filter((c) => c === 'ACCEPTED')).toHaveLength(10);
    expect(codes.filter((c) => c === 'CAP_REACHED')).toHaveLength(40);
    const usage = await db.query(`SELECT used FROM cap_usage WHERE scope = 'offer:' || $1`, [ids.oCap]);
    expect(usage.rows).toEqual([{ used: 10 }]);
    const sold = await db.query(`SELECT count(*)::int AS n FROM sales WHERE offer_id = $1 AND status = 'accepted'`, [ids.oCap]);
    expect(sold.rows[0].n).toBe(10);
    await expectDeliveredOnce(
      answers.filter((r) => r.body.code === 'ACCEPTED').map((r) => r.body.svc_lead_id),
      answers.filter((r) => r.body.code !== 'ACCEPTED').map((r) => r.body.svc_lead_id),
    );
  });

  it('concurrent submits of one search’s five shared results accept exactly 3', async () => {
    for (let round = 0; round < 3; round++) {
      const s = await client.searchDone(ids.cShared, person());
      const shared = [ids.o1, ids.o2, ids.o3, ids.o4, ids.o5];
      const answers = await Promise.all(shared.map((o) => client.submit(ids.cShared, s.searchId, s.results.get(o).svc_result_id)));
      const accepted = answers.filter((r) => r.body.code === 'ACCEPTED');
      expect(accepted).toHaveLength(3);
      for (const r of answers.filter((x) => x.body.code !== 'ACCEPTED')) {
        expect([r.body.code, r.body.reason]).toEqual(['NOT_ELIGIBLE', 'Lead already sold the maximum number of times']);
      }
      const live = await db.query(`SELECT count(*)::int AS n FROM sales WHERE search_id = $1 AND status <> 'released'`, [s.searchId]);
      expect(live.rows[0].n).toBe(3);
      await expectDeliveredOnce(
        accepted.map((r) => r.body.svc_lead_id),
        answers.filter((r) => r.body.code !== 'ACCEPTED').map((r) => r.body.svc_lead_id),
      );
    }
  });

  it('concurrent true_exclusive and shared submits leave exactly one consistent outcome', async () => {
    for (let round = 0; round < 4; round++) {
      const s = await client.searchDone(ids.cShared, person());
      const offers = [ids.oTe, ids.o1, ids.o2];
      const answers = await Promise.all(offers.map((o) => client.submit(ids.cShared, s.searchId, s.results.get(o).svc_result_id)));
      const te = answers[0].body.code === 'ACCEPTED';
      const sharedAccepted = answers.slice(1).filter((r) => r.body.code === 'ACCEPTED').length;
      if (te) expect(sharedAccepted).toBe(0);
      else {
        expect(answers[0].body.code).toBe('NOT_ELIGIBLE');
        expect(sharedAccepted).toBeGreaterThanOrEqual(1);
      }
      const state = await db.query(`SELECT accepted_count, true_exclusive_accepted FROM searches WHERE id = $1`, [s.searchId]);
      expect(state.rows[0]).toEqual({ accepted_count: te ? 1 : sharedAccepted, true_exclusive_accepted: te });
      await expectDeliveredOnce(
        answers.filter((r) => r.body.code === 'ACCEPTED').map((r) => r.body.svc_lead_id),
        answers.filter((r) => r.body.code !== 'ACCEPTED').map((r) => r.body.svc_lead_id),
      );
    }
  });

  it('a delivery worker killed while a submit is in flight: one decision, at most one delivery', async () => {
    const s = await client.searchDone(ids.cSlow, person());
    const res = await client.submit(ids.cSlow, s.searchId, s.results.get(ids.oSlow).svc_result_id);
    expect([res.status, res.body.code]).toEqual([202, 'PENDING']);
    const leadId = res.body.svc_lead_id as string;
    // The school is being called (the attempt is recorded before the call): kill the worker now.
    for (let i = 0; i < 50; i++) {
      const { rows } = await db.query(`SELECT 1 FROM delivery_attempts WHERE lead_id = $1`, [leadId]);
      if (rows.length > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await delivery.kill();
    delivery = await startApp('delivery', env);

    const final = await client.finalStatus(leadId, 30_000);
    expect(final.body.status).not.toBe('pending');
    expect(['ACCEPTED', 'BUYER_REJECTED']).toContain(final.body.code);
    const rows = await db.query(`SELECT status, code FROM leads WHERE id = $1`, [leadId]);
    expect(rows.rows).toHaveLength(1);
    const attempts = await db.query(`SELECT outcome, finished_at IS NOT NULL AS finished FROM delivery_attempts WHERE lead_id = $1`, [
      leadId,
    ]);
    expect(attempts.rows).toEqual([{ outcome: expect.any(String), finished: true }]);
    const received = await receivedBySchool(sandbox.url, school('slow'));
    expect(received.get(leadId) ?? 0).toBeLessThanOrEqual(1);
    const sale = await db.query(`SELECT status FROM sales WHERE lead_id = $1`, [leadId]);
    expect(sale.rows[0].status).toBe(final.body.code === 'ACCEPTED' ? 'accepted' : 'released');
    // Asking again (a redelivery, a replay) changes nothing.
    const again = await client.leadStatus(leadId);
    expect(again.body.code).toBe(final.body.code);
  });

  it('the same submit message delivered twice at once (a redelivery while the first copy runs) has one effect', async () => {
    const s = await client.searchDone(ids.cShared, person());
    const leadId = randomUUID();
    const msg: SubmitRequestedV1 = {
      leadId,
      kind: 'result_submit',
      affiliateId: ids.aff,
      apiKeyId,
      campaignId: ids.cShared,
      resultId: s.results.get(ids.o4).svc_result_id,
      searchId: s.searchId,
      offerId: null,
      originLeadId: null,
      lead: null,
      tracking: null,
      consumerIp: null,
      ipSource: null,
      programId: null,
      answers: {},
      tcpaConsent: true,
      consentButtonLabel: 'Go',
      formCertUrl: null,
      universalLeadCert: null,
      isTest: false,
      requestedAt: new Date().toISOString(),
    };
    await Promise.all([0, 1].map(() => amqp.publish(MESSAGE_TYPES.SubmitRequested, msg, { messageId: `submit:${leadId}` })));
    const final = await client.finalStatus(leadId, 30_000);
    expect([final.body.code, final.body.payout]).toEqual(['ACCEPTED', 2]);
    const sales = await db.query(`SELECT status FROM sales WHERE lead_id = $1`, [leadId]);
    expect(sales.rows).toEqual([{ status: 'accepted' }]);
    const state = await db.query(`SELECT accepted_count FROM searches WHERE id = $1`, [s.searchId]);
    expect(state.rows[0].accepted_count).toBe(1);
    expect((await receivedBySchool(sandbox.url, school('o4'))).get(leadId)).toBe(1);
    // A third copy later (a DLQ replay) only answers the stored decision.
    await amqp.publish(MESSAGE_TYPES.SubmitRequested, msg, { messageId: `submit:${leadId}` });
    await new Promise((r) => setTimeout(r, 500));
    expect((await db.query(`SELECT count(*)::int AS n FROM sales WHERE lead_id = $1`, [leadId])).rows[0].n).toBe(1);
    expect((await receivedBySchool(sandbox.url, school('o4'))).get(leadId)).toBe(1);
  });
});
