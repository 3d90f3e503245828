import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { loadConfig } from '../../libs/config/src';
import { MESSAGE_TYPES, SubmitRequestedV1 } from '../../libs/contracts/src';
import { AmqpConnection, queuesOf, topologyFor } from '../../libs/messaging/src';
import { campaign, ownOffer } from '../support/catalog-builder';
import { call } from '../support/http';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { handledMessages, logLines } from '../support/logs';
import { applyCatalog, issueKey } from '../support/ops';
import { person, receivedBySchool, SubmitClient } from '../support/submit-flow';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../support/test-env';
import { queueDepth } from '../integration/messaging/support';

/**
 * SIGTERM under load (issue 6, "graceful shutdown and scaling"): several
 * replicas of delivery and checks share their queues while hundreds of submits
 * are in flight; one replica of each is stopped mid-stream and delivery is
 * restarted. Reconciled in PostgreSQL and at the sandbox school: every submit
 * has exactly one decision, one sale, one delivery attempt and one lead at the
 * school, none is missing, each message was acked once, and the stopped
 * processes finished their in-flight work and exited 0 within the grace
 * period. Then the gateway: readiness fails at once, it keeps serving for
 * SHUTDOWN_DELAY_MS, stops accepting, finishes the request in flight, exits 0.
 */
describe('graceful shutdown under load (e2e)', () => {
  const suffix = uniqueSuffix();
  const GRACE_MS = 15_000;
  const env = testEnv(suffix, { SHUTDOWN_GRACE_MS: String(GRACE_MS), LOG_LEVEL: 'info' });
  const N = 500;
  const ids = {
    aff: randomUUID(),
    school: randomUUID(),
    slowSchool: randomUUID(),
    offer: randomUUID(),
    slowOffer: randomUUID(),
    campaign: randomUUID(),
  };
  const schoolName = `load-${suffix}`;
  let sandbox: RunningApp;
  let db: Client;
  let apiKey: { id: string; key: string };

  beforeAll(async () => {
    sandbox = await startApp('sandbox', env, 'live');
    applyCatalog(
      {
        affiliates: [{ id: ids.aff, name: 'Load', status: 'active', dupe_check: false }],
        schools: [
          { id: ids.school, name: 'Load school', logo_url: null },
          { id: ids.slowSchool, name: 'Slow school', logo_url: null },
        ],
        partners: [],
        offers: [
          ownOffer(ids.offer, ids.school, 'Load offer', `${sandbox.url}/schools/${schoolName}/leads?outcome=accept&delay_ms=250`),
          ownOffer(
            ids.slowOffer,
            ids.slowSchool,
            'Slow offer',
            `${sandbox.url}/schools/${schoolName}-slow/leads?outcome=accept&delay_ms=2500`,
          ),
        ],
        campaigns: [
          campaign(ids.campaign, ids.aff, 'Load', [
            { offer_id: ids.offer, payout: 4 },
            { offer_id: ids.slowOffer, payout: 4 },
          ]),
        ],
      },
      env,
    );
    apiKey = issueKey(ids.aff, env, ['--limit', 'leads=60000/1000', '--limit', 'dupe-check=60000/1000']);
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await stopAppsAndTopology(env);
    await db?.end();
  });

  /** A direct post as the gateway publishes it, for a person of its own. */
  const directPost = (leadId: string): SubmitRequestedV1 => {
    const lead = person();
    return {
      leadId,
      kind: 'direct_post',
      affiliateId: ids.aff,
      apiKeyId: apiKey.id,
      campaignId: ids.campaign,
      resultId: null,
      searchId: null,
      offerId: ids.offer,
      originLeadId: null,
      lead,
      tracking: { ip_address: '73.12.44.10' },
      consumerIp: '73.12.44.10',
      ipSource: 'consumer',
      programId: 'gen',
      answers: {},
      tcpaConsent: true,
      consentButtonLabel: 'Request info',
      formCertUrl: null,
      universalLeadCert: null,
      isTest: false,
      requestedAt: new Date().toISOString(),
    };
  };

  const decided = async (leadIds: string[]) =>
    Number((await db.query(`SELECT count(*) AS n FROM leads WHERE id = ANY($1) AND status <> 'pending'`, [leadIds])).rows[0].n);

  /** SIGTERM, then resolves with the exit code, the signal (if killed) and how long it took. */
  const terminate = (app: RunningApp) => {
    const sent = Date.now();
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>((resolve) =>
      app.child.once('exit', (code, signal) => resolve({ code, signal, ms: Date.now() - sent })),
    );
    app.child.kill('SIGTERM');
    return exited;
  };

  /** Times of the `message handled` lines a process wrote after it started draining. */
  const handledWhileDraining = (app: RunningApp) => {
    const lines = logLines(app.output());
    const draining = lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('draining'));
    expect(draining).toBeDefined();
    return lines.filter((l) => l.msg === 'message handled' && String(l.time) >= String(draining!.time));
  };

  it(`${N} submits, 3 delivery and 2 checks replicas, one of each stopped mid-stream and delivery restarted: each submit has exactly one effect`, async () => {
    const checks = await Promise.all([startApp('checks', env), startApp('checks', env)]);
    const delivery = await Promise.all([startApp('delivery', env), startApp('delivery', env), startApp('delivery', env)]);
    const leadIds = Array.from({ length: N }, () => randomUUID());
    // Watched from the first publish on: the replicas consume while the rest is still being published.
    const midStream = (async () => {
      for (let i = 0; i < 1200 && (await decided(leadIds)) < N / 5; i++) await new Promise((r) => setTimeout(r, 25));
    })();
    const amqp = new AmqpConnection(loadConfig('gateway', env));
    await amqp.start();
    try {
      // The gateway's message id for a submit is `submit:<lead id>`; the broker now holds every one of them.
      await Promise.all(
        leadIds.map((leadId) => amqp.publish(MESSAGE_TYPES.SubmitRequested, directPost(leadId), { messageId: `submit:${leadId}` })),
      );
    } finally {
      await amqp.close();
    }

    // Mid-stream: some decided, hundreds in flight or queued.
    await midStream;
    const atSigterm = await decided(leadIds);
    expect(atSigterm).toBeGreaterThanOrEqual(N / 5);
    expect(atSigterm).toBeLessThan(N * 0.8);
    // A replacement replica starts while the stopped ones drain (a rolling restart).
    const [deliveryExit, checksExit, restarted] = await Promise.all([
      terminate(delivery[0]),
      terminate(checks[0]),
      startApp('delivery', env),
    ]);

    for (let i = 0; i < 600 && (await decided(leadIds)) < N; i++) await new Promise((r) => setTimeout(r, 100));

    // Nothing lost: every submit decided, accepted, sold once, attempted once.
    const leads = await db.query(`SELECT status, code, count(*)::int AS n FROM leads WHERE id = ANY($1) GROUP BY status, code`, [leadIds]);
    expect(leads.rows).toEqual([{ status: 'accepted', code: 'ACCEPTED', n: N }]);
    const sales = await db.query(
      `SELECT lead_id, count(*)::int AS n, min(status) AS status FROM sales WHERE lead_id = ANY($1) GROUP BY lead_id`,
      [leadIds],
    );
    expect(sales.rows).toHaveLength(N);
    expect(sales.rows.filter((r) => r.n !== 1 || r.status !== 'accepted')).toEqual([]);
    const attempts = await db.query(`SELECT lead_id, count(*)::int AS n FROM delivery_attempts WHERE lead_id = ANY($1) GROUP BY lead_id`, [
      leadIds,
    ]);
    expect(attempts.rows).toHaveLength(N);
    expect(attempts.rows.filter((r) => r.n !== 1)).toEqual([]);
    // Nothing twice at the buyer: the school received each lead exactly once (its Idempotency-Key is the lead id).
    const received = await receivedBySchool(sandbox.url, schoolName);
    expect(leadIds.filter((leadId) => received.get(leadId) !== 1)).toEqual([]);
    // Each message was acked exactly once, by one of the replicas, and none is left in its queue or its DLQ:
    // the submit by a checks replica, the reserved lead it forwarded by a delivery replica.
    const acks = new Map<string, number>();
    const ackedBy = (apps: RunningApp[], type: string) => {
      for (const app of apps) {
        for (const l of handledMessages(logLines(app.output()), type)) {
          if (l.outcome === 'ack') acks.set(String(l.message_id), (acks.get(String(l.message_id)) ?? 0) + 1);
        }
      }
    };
    ackedBy(checks, MESSAGE_TYPES.SubmitRequested);
    ackedBy([...delivery, restarted], MESSAGE_TYPES.DeliveryRequested);
    expect(leadIds.filter((leadId) => acks.get(`submit:${leadId}`) !== 1)).toEqual([]);
    expect(leadIds.filter((leadId) => acks.get(`deliver:${leadId}`) !== 1)).toEqual([]);
    for (const consumer of ['checks', 'delivery'] as const) {
      const queues = queuesOf(topologyFor(loadConfig(consumer, env)), consumer);
      expect([consumer, await queueDepth(queues.queue), await queueDepth(queues.dlq)]).toEqual([consumer, 0, 0]);
    }

    // The stopped replicas drained: they handled what they held after SIGTERM, and exited 0 within the grace period.
    expect(deliveryExit).toEqual({ code: 0, signal: null, ms: expect.any(Number) });
    expect(checksExit).toEqual({ code: 0, signal: null, ms: expect.any(Number) });
    expect(deliveryExit.ms).toBeLessThan(GRACE_MS);
    expect(checksExit.ms).toBeLessThan(GRACE_MS);
    expect(handledWhileDraining(delivery[0]).length).toBeGreaterThan(0);
    expect(handledWhileDraining(delivery[0]).every((l) => l.outcome === 'ack')).toBe(true);
    // The replicas that kept running shared the rest of the work.
    for (const app of [delivery[1], delivery[2]])
      expect(handledMessages(logLines(app.output()), MESSAGE_TYPES.DeliveryRequested).length).toBeGreaterThan(0);
    expect(handledMessages(logLines(checks[1].output()), MESSAGE_TYPES.SubmitRequested).length).toBeGreaterThan(0);
  });

  // Runs on the delivery and checks replicas the test above left running.
  it('the gateway: readiness fails at once, it serves through SHUTDOWN_DELAY_MS, then stops accepting, finishes the request in flight and exits 0', async () => {
    const DELAY_MS = 1500;
    const gateway = await startApp('gateway', { ...env, SHUTDOWN_DELAY_MS: String(DELAY_MS) });
    const client = new SubmitClient(gateway.url, apiKey.key, ids.aff);
    // A direct post to a school that answers after 2.5 s: in flight across the whole shutdown.
    const inFlight = client.directPost(ids.campaign, ids.slowOffer, person(), { program_id: 'gen' });
    await new Promise((r) => setTimeout(r, 300));
    const exit = terminate(gateway);
    await new Promise((r) => setTimeout(r, 100));

    const ready = await call(gateway.managementUrl, 'GET', '/health/ready');
    expect([ready.status, ready.body.status]).toEqual([503, 'draining']);
    // Still serving while the load balancer takes it out of rotation.
    const during = await call(gateway.url, 'GET', `/api/v1/engine/leads/${randomUUID()}`, { key: apiKey.key });
    expect([during.status, during.body.code]).toEqual([404, 'NOT_FOUND']);

    await new Promise((r) => setTimeout(r, DELAY_MS + 200));
    // Past the delay it takes nothing new: the listener is closed (or, on a kept-alive connection, a 503).
    const after = await call(gateway.url, 'GET', `/api/v1/engine/leads/${randomUUID()}`, { key: apiKey.key }).then(
      (res) => res.status,
      (e: Error & { cause?: { code?: string } }) => e.cause?.code ?? e.message,
    );
    expect([503, 'ECONNREFUSED']).toContain(after);

    const answer = await inFlight;
    expect([answer.status, answer.body.code]).toEqual([200, 'ACCEPTED']);
    const exited = await exit;
    expect([exited.code, exited.signal]).toEqual([0, null]);
    expect(exited.ms).toBeGreaterThanOrEqual(DELAY_MS);
    expect(exited.ms).toBeLessThan(DELAY_MS + GRACE_MS);
  });
});
