import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { hashOf, type Lead, leadDedupeKeys } from '../../libs/domain/src';
import { campaign, ownOffer } from '../support/catalog-builder';
import { call, HttpAnswer } from '../support/http';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey } from '../support/ops';
import { TcpProxy } from '../support/tcp-proxy';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../support/test-env';
import { TEST_PERSON_KEY_SECRET } from '../support/person-key';

const PATH = '/api/v1/engine/dupe-check';

/**
 * The duplicate pre-check over HTTP against the built gateway on the real
 * PostgreSQL, Redis and RabbitMQ (policy: docs/duplicates.md). Accepted sales
 * are seeded the way the submit path leaves them: a live lead row and one
 * dedupe_keys row per key, built with the domain's own leadDedupeKeys.
 */
describe('duplicate pre-check (e2e)', () => {
  const env = testEnv(uniqueSuffix());
  const id = () => randomUUID();
  const ids = {
    affA: id(),
    affOff: id(),
    affPaused: id(),
    affD: id(),
    school: id(),
    offerLong: id(),
    offerShort: id(),
    offerD: id(),
    campaignA: id(),
    campaignOff: id(),
    campaignPaused: id(),
    campaignD: id(),
  };
  // Each run its own people, so reruns against a kept database never see old sales.
  const tag = uniqueSuffix();
  const ada: Lead = {
    personal: {
      first_name: 'Ada',
      last_name: 'Lovelace-Byron',
      email: `ada.lovelace.${tag}@gmail.com`,
      phone: '5125550100',
      date_of_birth: '1995-04-12',
    },
    address: { zip_code: '75001' },
  };
  /** Sold 40 days ago: outside offerLong's 30-day window. */
  const old: Lead = {
    personal: { last_name: 'Babbage', email: `charles.${tag}@example.com`, phone: '5125550101', date_of_birth: '1991-12-26' },
    address: { zip_code: '75002' },
  };
  /** Sold by affiliate D on D's own offer. */
  const dOnly: Lead = { personal: { email: `grace.${tag}@example.com`, phone: '5125550102' } };
  const stranger = {
    email: `someone.else.${tag}@example.com`,
    phone: '(512) 555-0199',
    last_name: 'Hopper',
    zip: '75001',
    dob: '1995-04-12',
  };

  let gateway: RunningApp;
  let keyA: { id: string; key: string };
  let keyD: { id: string; key: string };
  let keyOff: string;
  let keyPaused: string;
  let db: Client;

  const own = (offerId: string, name: string, windowDays: number) =>
    ownOffer(offerId, ids.school, name, 'http://127.0.0.1:9/schools/e2e/leads?outcome=accept', {
      price: 40,
      duplicate_window_days: windowDays,
    });

  beforeAll(async () => {
    applyCatalog(
      {
        affiliates: [
          { id: ids.affA, name: 'Dupe A', status: 'active', dupe_check: true },
          { id: ids.affOff, name: 'Dupe off', status: 'active', dupe_check: false },
          { id: ids.affPaused, name: 'Dupe paused', status: 'paused', dupe_check: true },
          { id: ids.affD, name: 'Dupe D', status: 'active', dupe_check: true },
        ],
        schools: [{ id: ids.school, name: 'Dupe School', logo_url: null }],
        partners: [],
        offers: [own(ids.offerLong, 'Long window', 30), own(ids.offerShort, 'Short window', 7), own(ids.offerD, 'D only', 30)],
        campaigns: [
          campaign(ids.campaignA, ids.affA, 'A', [
            { offer_id: ids.offerLong, payout: 20 },
            { offer_id: ids.offerShort, payout: 20 },
          ]),
          campaign(ids.campaignOff, ids.affOff, 'Off', [{ offer_id: ids.offerLong }]),
          campaign(ids.campaignPaused, ids.affPaused, 'Paused', [{ offer_id: ids.offerLong }]),
          campaign(ids.campaignD, ids.affD, 'D', [{ offer_id: ids.offerD }]),
        ],
      },
      env,
    );
    // Roomy budgets: these tests are about the decision; the contract's own 30/min, burst 10 is tested on a fresh key below.
    const roomy = ['--limit', 'dupe-check=6000/1000'];
    keyA = issueKey(ids.affA, env, roomy);
    keyD = issueKey(ids.affD, env, roomy);
    keyOff = issueKey(ids.affOff, env, roomy).key;
    keyPaused = issueKey(ids.affPaused, env, roomy).key;
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    await sold(ada, ids.offerLong, '1 day', ids.affA, ids.campaignA, keyA.id);
    await sold(old, ids.offerLong, '40 days', ids.affA, ids.campaignA, keyA.id);
    await sold(dOnly, ids.offerD, '1 day', ids.affD, ids.campaignD, keyD.id);
    // info: the request lines are logged, so the test below can read them for contact data.
    gateway = await startApp('gateway', { ...env, LOG_LEVEL: 'info' });
  });

  afterAll(async () => {
    await stopAppsAndTopology(env);
    await db?.end();
  });

  /** What an accepted live sale leaves behind (the submit issue writes these rows at reservation). */
  async function sold(lead: Lead, offerId: string, ago: string, affiliateId: string, campaignId: string, apiKeyId: string) {
    const leadId = randomUUID();
    await db.query(
      `INSERT INTO leads (id, kind, affiliate_id, campaign_id, offer_id, api_key_id, lead, consumer_ip, status, code, lead_group_id)
       VALUES ($1, 'direct_post', $2, $3, $4, $5, '{}', '73.12.44.10', 'accepted', 'ACCEPTED', $1)`,
      [leadId, affiliateId, campaignId, offerId, apiKeyId],
    );
    const keys = leadDedupeKeys(TEST_PERSON_KEY_SECRET, lead);
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) {
      await db.query(
        `INSERT INTO dedupe_keys (lead_id, key_type, key_hash, offer_id, school_id, affiliate_id, accepted_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() - $7::interval)`,
        [leadId, k.type, k.hash, offerId, ids.school, affiliateId, ago],
      );
    }
  }

  const check = (body: unknown, key: string = keyA.key) => call(gateway.url, 'POST', PATH, { key, body });
  const answer = (duplicate: boolean) => ({
    code: 'OK',
    status: 'accepted',
    reason: 'OK',
    success: true,
    duplicate_likely: duplicate,
    retryable: false,
  });
  const expectDecision = (res: HttpAnswer, duplicate: boolean) => {
    expect([res.status, res.body]).toEqual([200, answer(duplicate)]);
  };

  describe('decisions', () => {
    it('the same person sent raw with other formatting: duplicate_likely true, and nothing else in the answer', async () => {
      const res = await check({
        email: ` ADA.Love.Lace.${tag}+newsletter@GoogleMail.com `,
        phone: '+1 (512) 555.0100',
        first_name: 'ADA',
        last_name: 'lovelace byron',
        zip: '75001-4321',
        dob: '04/12/1995',
        address: '12 St James Sq',
      });
      expectDecision(res, true);
      // Exactly the contract's fields: no score, no matched field.
      expect(Object.keys(res.body).sort()).toEqual(['code', 'duplicate_likely', 'reason', 'retryable', 'status', 'success']);
    });

    it.each([
      ['email (Gmail dots, +tag, upper case)', { email: `A.D.A.LOVELACE.${tag}+x@gmail.com` }],
      ['phone (+1 and punctuation)', { phone: '+1 512-555-0100' }],
      ['last name + ZIP+4 + MM/DD/YYYY date of birth', { last_name: 'LOVELACE-BYRON', zip: '75001-0001', dob: '4/12/1995' }],
    ])('each key alone matches: %s', async (_label, body) => {
      expectDecision(await check(body), true);
    });

    it('the same person sent hashed: true (all keys, or one)', async () => {
      const hashed = {
        email: hashOf('email', ada.personal!.email!),
        phone: hashOf('phone', ada.personal!.phone!),
        last_name: hashOf('last_name', ada.personal!.last_name!),
        zip: hashOf('zip', ada.address!.zip_code!),
        dob: hashOf('dob', ada.personal!.date_of_birth!),
        birth_year: hashOf('birth_year', '1995'),
      };
      expectDecision(await check({ hashed }), true);
      expectDecision(await check({ hashed: { phone: hashed.phone!.toUpperCase() } }), true);
      expectDecision(await check({ hashed: { last_name: hashed.last_name, zip: hashed.zip, dob: hashed.dob } }), true);
    });

    it('a hashed key wins over the same raw key', async () => {
      const strangerEmail = hashOf('email', stranger.email)!;
      const adaEmail = hashOf('email', ada.personal!.email!)!;
      expectDecision(await check({ email: ada.personal!.email, hashed: { email: strangerEmail } }), false);
      expectDecision(await check({ email: stranger.email, hashed: { email: adaEmail } }), true);
    });

    it('another person: false', async () => {
      expectDecision(await check(stranger), false);
      expectDecision(await check({ ...stranger, offer_id: ids.offerLong }), false);
    });

    it("outside the offer's window: false", async () => {
      const body = { email: old.personal!.email, phone: old.personal!.phone, last_name: 'Babbage', zip: '75002', dob: '1991-12-26' };
      expectDecision(await check(body), false);
      expectDecision(await check({ ...body, offer_id: ids.offerLong }), false);
    });

    it('offer-scoped counts only that offer; account-wide any offer on the caller’s campaigns', async () => {
      const body = { email: ada.personal!.email };
      expectDecision(await check({ ...body, offer_id: ids.offerLong }), true);
      expectDecision(await check({ ...body, offer_id: ids.offerLong.toUpperCase() }), true);
      // offerShort is A's too, but Ada was sold to offerLong only.
      expectDecision(await check({ ...body, offer_id: ids.offerShort }), false);
      expectDecision(await check(body), true);
    });

    it("another affiliate's offers do not count account-wide", async () => {
      const body = { email: dOnly.personal!.email, phone: dOnly.personal!.phone };
      expectDecision(await check(body), false);
      expectDecision(await check(body, keyD.key), true);
      expectDecision(await check({ ...body, offer_id: ids.offerD }, keyD.key), true);
      // Ada was sold to offerLong, which is not on D's campaigns.
      expectDecision(await check({ email: ada.personal!.email }, keyD.key), false);
    });

    it('usable fields that make no key (only a ZIP, only a first name or address, a partial name key): false', async () => {
      expectDecision(await check({ zip: '75001' }), false);
      expectDecision(await check({ first_name: 'Ada' }), false);
      expectDecision(await check({ address: '12 St James Sq' }), false);
      expectDecision(await check({ last_name: 'Lovelace-Byron', zip: '75001' }), false);
    });

    it('never logs contact data', async () => {
      const out = gateway.output();
      expect(out).toContain(PATH); // request lines are there to read
      for (const secret of [
        `ada.lovelace.${tag}`,
        'Lovelace',
        'lovelace byron',
        '5125550100',
        '555-0100',
        '555.0100',
        'Babbage',
        stranger.email,
      ]) {
        expect(out.toLowerCase()).not.toContain(secret.toLowerCase());
      }
    });
  });

  describe('refusals', () => {
    const plain = { email: `x.${tag}@example.com` };

    it('400 MALFORMED_REQUEST without a usable lead field', async () => {
      for (const body of [{}, { foo: 'bar' }, { email: ' ' }, { email: 'not-an-email' }, { hashed: {} }]) {
        const res = await check(body);
        expect([res.status, res.body.code, res.body.reason, res.body.success]).toEqual([
          400,
          'MALFORMED_REQUEST',
          'No usable lead field',
          false,
        ]);
      }
    });

    it('400 INVALID_FIELD for an offer_id that is not a UUID', async () => {
      const res = await check({ ...plain, offer_id: 'offer-1' });
      expect([res.status, res.body.code, res.body.field]).toEqual([400, 'INVALID_FIELD', 'offer_id']);
    });

    it('401 AUTH_REQUIRED without a key, AUTH_INVALID with an unknown one', async () => {
      const none = await call(gateway.url, 'POST', PATH, { body: plain });
      expect([none.status, none.body.code]).toEqual([401, 'AUTH_REQUIRED']);
      const bad = await check(plain, 'lr_not-a-real-key');
      expect([bad.status, bad.body.code]).toEqual([401, 'AUTH_INVALID']);
    });

    it("403 FORBIDDEN for an offer that is not the caller's (another's, or unknown)", async () => {
      for (const offerId of [ids.offerD, randomUUID()]) {
        const res = await check({ ...plain, offer_id: offerId });
        expect([res.status, res.body.code, res.body.status]).toEqual([403, 'FORBIDDEN', 'invalid']);
      }
    });

    it('403 FORBIDDEN for a key whose account may not call (paused affiliate)', async () => {
      const res = await check(plain, keyPaused);
      expect([res.status, res.body.code, res.body.error]).toEqual([403, 'FORBIDDEN', 'affiliate_paused']);
    });

    it('404 with a plain { error } body when the account has no pre-check', async () => {
      const res = await check(plain, keyOff);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'dupe_check_not_available' });
    });

    it.each(['GET', 'PUT', 'DELETE', 'PATCH'])('405 MALFORMED_REQUEST for %s', async (method) => {
      const res = await call(gateway.url, method, PATH, {
        key: keyA.key,
        body: method === 'GET' || method === 'DELETE' ? undefined : plain,
      });
      expect([res.status, res.body.code, res.body.reason, res.headers.get('allow')]).toEqual([
        405,
        'MALFORMED_REQUEST',
        'Use POST',
        'POST',
      ]);
    });

    it('413 over 16 KB', async () => {
      const big = await check({ ...plain, pad: 'x'.repeat(16 * 1024) });
      expect([big.status, big.body.code]).toEqual([413, 'MALFORMED_REQUEST']);
      const fits = await check({ ...plain, pad: 'x'.repeat(15 * 1024) });
      expectDecision(fits, false);
    });

    it('429 RATE_LIMITED after the burst of 10 (contract: 30 per minute)', async () => {
      const { key } = issueKey(ids.affA, env);
      const answers = await Promise.all(Array.from({ length: 13 }, () => check(plain, key)));
      const ok = answers.filter((a) => a.status === 200).length;
      // At most one token (one per 2 s) can refill while 13 requests are in flight.
      expect(ok).toBeGreaterThanOrEqual(10);
      expect(ok).toBeLessThanOrEqual(11);
      const refused = answers.find((a) => a.status === 429)!;
      expect(refused.body).toEqual(
        expect.objectContaining({ code: 'RATE_LIMITED', status: 'failed', reason: 'Too many requests', retryable: true }),
      );
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(2);
      expect(refused.body.retry_after_seconds).toBe(Number(refused.headers.get('retry-after')));
    });

    it('sends no CORS headers, on answers or on a preflight', async () => {
      const origin = { Origin: 'https://evil.example' };
      const answers = [
        await call(gateway.url, 'POST', PATH, { key: keyA.key, body: { email: ada.personal!.email }, headers: origin }),
        await call(gateway.url, 'POST', PATH, { key: keyA.key, body: {}, headers: origin }),
        await call(gateway.url, 'OPTIONS', PATH, { headers: { ...origin, 'Access-Control-Request-Method': 'POST' } }),
      ];
      expect(answers[0].status).toBe(200);
      expect(answers[2].status).toBe(405);
      for (const res of answers) {
        expect([...res.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
      }
    });
  });

  describe('PostgreSQL unreachable', () => {
    const proxy = new TcpProxy(5432);
    let proxied: RunningApp;

    beforeAll(async () => {
      await proxy.start();
      const url = new URL(TEST_DATABASE_URL);
      url.port = String(proxy.port);
      url.hostname = '127.0.0.1';
      proxied = await startApp('gateway', { ...env, DATABASE_URL: url.toString() });
    });
    afterAll(() => proxy.close());

    it('503 UNAVAILABLE (retryable) within 2 s, then answers again', async () => {
      const body = { email: ada.personal!.email };
      expectDecision(await call(proxied.url, 'POST', PATH, { key: keyA.key, body }), true);
      await proxy.cut();
      try {
        for (let i = 0; i < 3; i += 1) {
          const res = await call(proxied.url, 'POST', PATH, { key: keyA.key, body });
          expect([res.status, res.body]).toEqual([
            503,
            expect.objectContaining({ code: 'UNAVAILABLE', status: 'failed', success: false, retryable: true, retry_after_seconds: 1 }),
          ]);
          expect(res.headers.get('retry-after')).toBe('1');
          expect(res.ms).toBeLessThan(2000);
        }
        expect(proxied.child.exitCode).toBeNull();
      } finally {
        await proxy.restore();
      }
      const deadline = Date.now() + 15_000;
      let last: HttpAnswer | undefined;
      while (Date.now() < deadline) {
        last = await call(proxied.url, 'POST', PATH, { key: keyA.key, body });
        if (last.status === 200) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expectDecision(last!, true);
      // The outage was logged (by the failed call, or by the gateway's probe if it noticed first), without the person's data.
      expect(proxied.output()).toMatch(/dependency unavailable|dependency down/);
      expect(proxied.output().toLowerCase()).not.toContain(`ada.lovelace.${tag}`);
    });
  });
});
