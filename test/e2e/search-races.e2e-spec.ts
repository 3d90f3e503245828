import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import Redis from 'ioredis';
import { loadConfig } from '../../libs/config/src';
import { MESSAGE_TYPES, PartnerAnswer, PartnerSearchAnsweredV2, SearchRequestedV1 } from '../../libs/contracts/src';
import { AmqpConnection, RawReply, topologyFor } from '../../libs/messaging/src';
import type { SearchAnswer } from '../../libs/search-state/src';
import { campaign, catalogOffer, partnerOffer, searchBody } from '../support/catalog-builder';
import { call } from '../support/http';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey } from '../support/ops';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../support/test-env';

/**
 * The search-orchestrator's handlers under concurrency and redelivery, against
 * the real broker: answers of three partners arriving at once, each delivered
 * twice, merge exactly once each into one consistent ranked list; a search
 * request delivered twice at once stores one search with one result list; Redis
 * ends on the newest version. No partner-adapter runs: this test plays it.
 */
describe('search orchestration races (e2e)', () => {
  const env = testEnv(uniqueSuffix());
  const id = () => randomUUID();
  const ids = {
    aff: id(),
    schoolOwn: id(),
    own: id(),
    campaign: id(),
    partners: [id(), id(), id()],
    schools: [id(), id(), id()],
    offers: [id(), id(), id()],
  };
  let gateway: RunningApp;
  let key: { id: string; key: string };
  let db: Client;
  let amqp: AmqpConnection;
  let redis: Redis;

  beforeAll(async () => {
    applyCatalog(
      {
        affiliates: [{ id: ids.aff, name: 'Races', status: 'active', dupe_check: false }],
        schools: [
          { id: ids.schoolOwn, name: 'Own School', logo_url: null },
          ...ids.schools.map((s, i) => ({ id: s, name: `Partner School ${i}`, logo_url: null })),
        ],
        partners: ids.partners.map((p, i) => ({
          id: p,
          name: `Race partner ${i}`,
          adapter: 'sandbox',
          base_url: `http://127.0.0.1:9/partners/race${i}`,
          timeout_ms: 30000,
        })),
        offers: [
          catalogOffer(ids.own, ids.schoolOwn, 'Own', {
            source: 'own',
            priority: 5,
            price: 10,
            tcpa_text: 'ok',
            programs: [{ value: 'gen', label: 'General' }],
            delivery: { adapter: 'sandbox', url: 'http://127.0.0.1:9/schools/x/leads' },
          }),
          ...ids.offers.map((o, i) =>
            partnerOffer(o, ids.schools[i], `Partner offer ${i}`, ids.partners[i], `race-${i}`, { priority: i * 4 }),
          ),
        ],
        campaigns: [
          campaign(ids.campaign, ids.aff, 'Races', [
            { offer_id: ids.own, payout: 3 },
            ...ids.offers.map((o) => ({ offer_id: o, payout: 7 })),
          ]),
        ],
      },
      env,
    );
    key = issueKey(ids.aff, env, ['--limit', 'search=6000/1000', '--limit', 'results=6000/1000']);
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    await Promise.all([startApp('checks', env), startApp('search-orchestrator', env)]);
    gateway = await startApp('gateway', env);
    const config = loadConfig('gateway', env);
    amqp = new AmqpConnection(config, { topology: topologyFor(config) });
    await amqp.start();
    redis = new Redis(env.REDIS_URL, { keyPrefix: env.REDIS_KEY_PREFIX });
  });

  afterAll(async () => {
    await amqp?.close();
    redis?.disconnect();
    await stopAppsAndTopology(env);
    await db?.end();
  });

  const poll = (searchId: string) => call(gateway.url, 'GET', `/api/v1/engine/results/${searchId}`, { key: key.key });
  /** Partner i's answer. */
  const partnerAnswerOf = (i: number): PartnerAnswer => ({
    partnerId: ids.partners[i],
    outcome: 'answered',
    latencyMs: 12,
    results: [
      {
        offerId: ids.offers[i],
        externalId: `race-${i}`,
        partnerResultId: `pr-${i}`,
        programs: [{ value: `p${i}`, label: `Program ${i}` }],
        formFields: [],
        tcpaText: `Partner ${i} may contact me`,
        school: null,
        expiresInSeconds: 600,
      },
    ],
  });
  /** Partner i's answer in a message of its own. */
  const answerOf = (searchId: string, i: number): PartnerSearchAnsweredV2 => ({
    searchId,
    campaignId: ids.campaign,
    answers: [partnerAnswerOf(i)],
  });

  async function waitDone(searchId: string) {
    for (let i = 0; i < 100; i += 1) {
      const res = await poll(searchId);
      if (res.body.processing_done) return res;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('search not done');
  }

  it('three partner answers at once, each delivered twice, merge once each into one ranked list', async () => {
    const first = await call(gateway.url, 'POST', '/api/v1/engine/search', { key: key.key, body: searchBody(ids.campaign, ids.aff) });
    expect(first.status).toBe(200);
    const searchId = first.body.svc_lead_id as string;
    expect(first.body.processing_done).toBe(false);

    // Each answer twice, the second copy under another messageId (a twin the message ids do not catch): the merge takes one.
    await Promise.all(
      [0, 1, 2].flatMap((i) => [
        amqp.publish(MESSAGE_TYPES.PartnerSearchAnswered, answerOf(searchId, i), {
          messageId: `partner-answer:${searchId}:${ids.partners[i]}`,
        }),
        amqp.publish(MESSAGE_TYPES.PartnerSearchAnswered, answerOf(searchId, i), {
          messageId: `partner-answer:${searchId}:${ids.partners[i]}:twin`,
        }),
      ]),
    );
    const done = await waitDone(searchId);
    // Priority 8, 5 (own), 4, 0: every partner result once, in rank order.
    expect(done.body.offers.map((o: { offer: { id: string } }) => o.offer.id)).toEqual([
      ids.offers[2],
      ids.own,
      ids.offers[1],
      ids.offers[0],
    ]);

    const order = await db.query(
      'SELECT r.offer_id FROM searches s JOIN results r ON r.search_id = s.id WHERE s.id = $1 ORDER BY array_position(s.result_order, r.id)',
      [searchId],
    );
    expect(order.rows.map((r) => r.offer_id)).toEqual([ids.offers[2], ids.own, ids.offers[1], ids.offers[0]]);
    const calls = await db.query('SELECT status FROM search_partner_calls WHERE search_id = $1', [searchId]);
    expect(calls.rows.map((r) => r.status)).toEqual(['answered', 'answered', 'answered']);
    const version = (await db.query('SELECT state_version FROM searches WHERE id = $1', [searchId])).rows[0].state_version;
    expect(version).toBe(4); // the first results, then one change per partner

    // Redis holds the newest version, and a late redelivery changes nothing.
    await amqp.publish(MESSAGE_TYPES.PartnerSearchAnswered, answerOf(searchId, 1), {
      messageId: `partner-answer:${searchId}:${ids.partners[1]}`,
    });
    await new Promise((r) => setTimeout(r, 500));
    const hot = await redis.hgetall(`search:${searchId}`);
    expect(Number(hot.v)).toBe(4);
    expect(JSON.parse(hot.meta).order).toHaveLength(4);
    expect(Object.keys(hot).filter((f) => f.startsWith('r:'))).toHaveLength(4);
    expect((await db.query('SELECT count(*)::int AS n FROM results WHERE search_id = $1', [searchId])).rows[0].n).toBe(4);
    expect((await poll(searchId)).body).toEqual(done.body);
  });

  it('an answer after the search closed is recorded on its call and adds nothing; one for an unknown search is dropped', async () => {
    const first = await call(gateway.url, 'POST', '/api/v1/engine/search', { key: key.key, body: searchBody(ids.campaign, ids.aff) });
    const searchId = first.body.svc_lead_id as string;
    await db.query(`UPDATE searches SET closes_at = now() - interval '1 second' WHERE id = $1`, [searchId]);
    await amqp.publish(MESSAGE_TYPES.PartnerSearchAnswered, answerOf(searchId, 0), {
      messageId: `partner-answer:${searchId}:${ids.partners[0]}`,
    });
    const unknown = randomUUID();
    await amqp.publish(MESSAGE_TYPES.PartnerSearchAnswered, answerOf(unknown, 0), {
      messageId: `partner-answer:${unknown}:${ids.partners[0]}`,
    });
    const deadline = Date.now() + 5000;
    let status = 'pending';
    while (status === 'pending' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      status = (
        await db.query('SELECT status FROM search_partner_calls WHERE search_id = $1 AND partner_id = $2', [searchId, ids.partners[0]])
      ).rows[0].status;
    }
    expect(status).toBe('answered');
    expect((await db.query('SELECT count(*)::int AS n FROM results WHERE search_id = $1', [searchId])).rows[0].n).toBe(1);
    const done = await poll(searchId);
    expect(done.body.processing_done).toBe(true); // past closes_at: the gateway closes it
    expect(done.body.offers.map((o: { offer: { id: string } }) => o.offer.id)).toEqual([ids.own]);
    expect((await db.query('SELECT count(*)::int AS n FROM searches WHERE id = $1', [unknown])).rows[0].n).toBe(0);
    // Neither answer was dead-lettered: both were handled.
    const { withAdminChannel } = await import('../integration/messaging/support');
    const dlq = await withAdminChannel((ch) => ch.checkQueue(`${env.AMQP_PREFIX}.search-orchestrator.dlq`));
    expect(dlq.messageCount).toBe(0);
  });

  /** The search answer a raw reply carries (the HTTP body the gateway sends on). */
  const searchAnswerOf = (reply: RawReply): SearchAnswer => {
    expect(reply).toBeInstanceOf(RawReply);
    return JSON.parse(reply.body.toString('utf8')) as SearchAnswer;
  };

  /** A search request as a gateway sends it (to the broker directly: this test plays the gateway). */
  const searchRequest = (searchId: string, extra: Partial<SearchRequestedV1> = {}): SearchRequestedV1 => {
    const now = Date.now();
    return {
      searchId,
      affiliateId: ids.aff,
      campaignId: ids.campaign,
      apiKeyId: key.id,
      isTest: false,
      lead: searchBody(ids.campaign, ids.aff).lead as SearchRequestedV1['lead'],
      tracking: { ip_address: '73.12.44.10' },
      consumerIp: '73.12.44.10',
      ipSource: 'consumer',
      tcpaConsent: null,
      formCertUrl: null,
      universalLeadCert: null,
      requestedAt: new Date(now).toISOString(),
      replyBy: new Date(now + 5000).toISOString(),
      ...extra,
    };
  };

  it('a search request delivered twice at once stores one search and answers both with the same list', async () => {
    const searchId = randomUUID();
    const request = searchRequest(searchId);
    const answers = await Promise.allSettled(
      [1, 2].map(() =>
        amqp.request<SearchRequestedV1, RawReply>(MESSAGE_TYPES.SearchRequested, request, { messageId: searchId, timeoutMs: 5000 }),
      ),
    );
    const ok = answers.filter((a): a is PromiseFulfilledResult<RawReply> => a.status === 'fulfilled').map((a) => searchAnswerOf(a.value));
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const a of ok) expect(a.offers.map((o) => o.svc_result_id)).toEqual(ok[0].offers.map((o) => o.svc_result_id));
    expect((await db.query('SELECT count(*)::int AS n FROM searches WHERE id = $1', [searchId])).rows[0].n).toBe(1);
    expect((await db.query('SELECT count(*)::int AS n FROM results WHERE search_id = $1', [searchId])).rows[0].n).toBe(1);
    expect((await db.query('SELECT count(*)::int AS n FROM search_partner_calls WHERE search_id = $1', [searchId])).rows[0].n).toBe(3);
  });

  it('the reply is the search answer’s body, and the state is in Redis before the reply', async () => {
    const searchId = randomUUID();
    const request = searchRequest(searchId);
    const reply = await amqp.request<SearchRequestedV1, RawReply>(MESSAGE_TYPES.SearchRequested, request, {
      messageId: searchId,
      timeoutMs: 5000,
    });
    const { offers, ...envelope } = searchAnswerOf(reply);
    expect(envelope).toEqual({
      code: 'OK',
      status: 'accepted',
      reason: 'OK',
      success: true,
      svc_lead_id: searchId,
      processing_done: false,
      poll_after_ms: 1000,
      accepted_count: 0,
      max_accepted_submissions: 3,
      true_exclusive_accepted: false,
    });
    expect(offers.map((o) => o.offer.id)).toEqual([ids.own]);
    // Read at once after the reply: the state is already there, with the own result in order.
    const state = await redis.hgetall(`search:${searchId}`);
    const meta = JSON.parse(state.meta);
    expect(meta.order).toHaveLength(1);
    expect(JSON.parse(state[`r:${meta.order[0]}`]).offer.id).toBe(ids.own);
    const stored = await db.query('SELECT result_order::text[] AS o FROM searches WHERE id = $1', [searchId]);
    expect(stored.rows[0].o).toEqual(meta.order);
  });
});
