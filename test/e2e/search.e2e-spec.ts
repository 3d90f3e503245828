import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { capPeriodStart, capScope, hashOf, keyedPersonKey, sha256Hex } from '../../libs/domain/src';
import { TEST_PERSON_KEY_SECRET } from '../support/person-key';
import { campaign, ownOffer, partnerOffer, searchBody } from '../support/catalog-builder';
import { call, HttpAnswer } from '../support/http';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey } from '../support/ops';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../support/test-env';

/**
 * Search and polling end to end, over HTTP against the running gateway,
 * search-orchestrator, checks, partner-adapter and sandbox: own results in the
 * search answer, partner results on later polls, the 45 s / partner-timeout
 * close, each search-time check (eligibility, cap, duplicate, sale state),
 * payouts and the live/test school listing.
 */
describe('search and polling (e2e)', () => {
  const env = testEnv(uniqueSuffix());
  const id = () => randomUUID();
  const ids = {
    affA: id(),
    affB: id(),
    schoolNorth: id(),
    schoolSouth: id(),
    schoolCapped: id(),
    schoolDup: id(),
    schoolOld: id(),
    schoolNy: id(),
    schoolPartner: id(),
    schoolPartnerNy: id(),
    schoolSlow: id(),
    own1: id(),
    own1b: id(),
    ownNoPayout: id(),
    ownCapped: id(),
    ownDup: id(),
    ownOldDup: id(),
    ownNy: id(),
    partnerFast: id(),
    partnerSlow: id(),
    partnerDead: id(),
    pOffer: id(),
    pOfferNy: id(),
    pSlowOffer: id(),
    pDeadOffer: id(),
    campaign: id(),
    campaignTimeout: id(),
    campaignSlow: id(),
    campaignB: id(),
    campaignMoved: id(),
  };
  const email = `ada.${uniqueSuffix()}@example.com`;
  let sandbox: RunningApp;
  let gateway: RunningApp;
  let keyA: { id: string; key: string };
  let keyB: string;
  let db: Client;

  const own = (offerId: string, schoolId: string, name: string, extra: Record<string, unknown> = {}) =>
    ownOffer(offerId, schoolId, name, `${sandbox.url}/schools/e2e/leads?outcome=accept`, extra);
  /** An exclusive partner offer, asked of its partner as westlake-<id>. */
  const westlake = (offerId: string, partnerId: string, schoolId: string, name: string, extra: Record<string, unknown> = {}) =>
    partnerOffer(offerId, schoolId, name, partnerId, `westlake-${offerId.slice(0, 8)}`, {
      offer_type: 'exclusive',
      priority: 20,
      result_ttl_seconds: 300,
      ...extra,
    });

  function catalog() {
    return {
      affiliates: [
        { id: ids.affA, name: 'Search A', status: 'active', dupe_check: true },
        { id: ids.affB, name: 'Search B', status: 'active', dupe_check: false },
      ],
      schools: [
        ['schoolNorth', 'Northfield University', 'https://cdn.example.org/nf.png'],
        ['schoolSouth', 'Southgate College', null],
        ['schoolCapped', 'Capped College', null],
        ['schoolDup', 'Dup College', null],
        ['schoolOld', 'Old Dup College', null],
        ['schoolNy', 'New York Only College', null],
        ['schoolPartner', 'Westlake College', null],
        ['schoolPartnerNy', 'Partner NY College', null],
        ['schoolSlow', 'Slow Partner College', null],
      ].map(([k, name, logo]) => ({ id: ids[k as keyof typeof ids], name, logo_url: logo })),
      partners: [
        {
          id: ids.partnerFast,
          name: 'E2E delayed',
          adapter: 'sandbox',
          base_url: `${sandbox.url}/partners/e2e-delayed?delay_ms=2000&match=all`,
          timeout_ms: 10000,
        },
        {
          id: ids.partnerSlow,
          name: 'E2E slow',
          adapter: 'sandbox',
          base_url: `${sandbox.url}/partners/e2e-slow?delay_ms=2500&match=all`,
          timeout_ms: 10000,
        },
        {
          id: ids.partnerDead,
          name: 'E2E dead',
          adapter: 'sandbox',
          base_url: `${sandbox.url}/partners/e2e-dead?outcome=timeout`,
          timeout_ms: 1500,
        },
      ],
      offers: [
        own(ids.own1, ids.schoolNorth, 'Northfield Online Nursing', {
          priority: 10,
          programs: [
            { value: 'bsn', label: 'BS in Nursing', eligibility: { education_levels: ['associate', 'bachelor'] } },
            { value: 'rn-bsn', label: 'RN to BSN' },
            { value: 'msn', label: 'MS in Nursing', eligibility: { education_levels: ['bachelor'] } },
          ],
          form_fields: [
            {
              name: 'hs_grad_year',
              label: 'High school graduation year',
              type: 'select',
              required: true,
              options: [
                { value: '2012', label: '2012' },
                { value: '2013', label: '2013' },
              ],
            },
            {
              name: 'rn_license',
              label: 'Do you hold an RN license?',
              type: 'select',
              required: false,
              required_when: { program_ids: ['rn-bsn'] },
              options: [
                { value: 'yes', label: 'Yes' },
                { value: 'no', label: 'No' },
              ],
            },
          ],
          eligibility: { states: ['TX', 'CA'], min_age: 18 },
        }),
        own(ids.own1b, ids.schoolNorth, 'Northfield Business', { priority: 3 }),
        own(ids.ownNoPayout, ids.schoolSouth, 'Southgate Criminal Justice', {
          priority: 8,
          offer_type: 'true_exclusive',
          result_ttl_seconds: 600,
        }),
        own(ids.ownCapped, ids.schoolCapped, 'Capped Offer', {
          priority: 7,
          caps: [{ period: 'day', limit: 1, timezone: 'America/Chicago' }],
        }),
        own(ids.ownDup, ids.schoolDup, 'Dup Offer', { priority: 6, duplicate_window_days: 30 }),
        own(ids.ownOldDup, ids.schoolOld, 'Old Dup Offer', { priority: 4, duplicate_window_days: 2 }),
        own(ids.ownNy, ids.schoolNy, 'NY Only Offer', { priority: 9, eligibility: { states: ['NY'] } }),
        westlake(ids.pOffer, ids.partnerFast, ids.schoolPartner, 'Westlake via partner'),
        westlake(ids.pOfferNy, ids.partnerFast, ids.schoolPartnerNy, 'Partner NY only', { eligibility: { states: ['NY'] } }),
        westlake(ids.pSlowOffer, ids.partnerSlow, ids.schoolSlow, 'Slow partner offer', { priority: 1 }),
        westlake(ids.pDeadOffer, ids.partnerDead, ids.schoolSlow, 'Dead partner offer'),
      ],
      campaigns: [
        campaign(ids.campaign, ids.affA, 'Search e2e', [
          { offer_id: ids.own1, payout: 20, program_payouts: { bsn: 30 } },
          { offer_id: ids.own1b, payout: 5 },
          { offer_id: ids.ownNoPayout },
          { offer_id: ids.ownCapped, payout: 10 },
          { offer_id: ids.ownDup, payout: 10 },
          { offer_id: ids.ownOldDup, payout: 10 },
          { offer_id: ids.ownNy, payout: 10 },
          { offer_id: ids.pOffer, payout: 12.5 },
          { offer_id: ids.pOfferNy, payout: 12.5 },
        ]),
        campaign(ids.campaignTimeout, ids.affA, 'Dead partner', [{ offer_id: ids.own1 }, { offer_id: ids.pDeadOffer }]),
        campaign(ids.campaignSlow, ids.affA, 'Slow partner', [{ offer_id: ids.ownNoPayout }, { offer_id: ids.pSlowOffer }]),
        campaign(ids.campaignB, ids.affB, 'B', [{ offer_id: ids.own1 }]),
        campaign(ids.campaignMoved, ids.affA, 'Moved later', [{ offer_id: ids.own1 }]),
      ],
    };
  }

  /** The test person: the search body's default lead with this file's own email. */
  const body = (campaignId: string, overrides: Record<string, unknown> = {}) => {
    const base = searchBody(campaignId, ids.affA);
    const lead = { ...base.lead, personal: { ...base.lead.personal, email } };
    return { ...base, lead, ...overrides };
  };
  const search = (campaignId: string, overrides: Record<string, unknown> = {}) =>
    call(gateway.url, 'POST', '/api/v1/engine/search', { key: keyA.key, body: body(campaignId, overrides) });
  const poll = (searchId: string, key = keyA.key) => call(gateway.url, 'GET', `/api/v1/engine/results/${searchId}`, { key });
  const offerIds = (res: HttpAnswer) => (res.body.offers as Array<{ offer: { id: string } }>).map((o) => o.offer.id);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  beforeAll(async () => {
    sandbox = await startApp('sandbox', env, 'live');
    applyCatalog(catalog(), env);
    const roomy = ['--limit', 'search=6000/1000', '--limit', 'results=6000/1000'];
    keyA = issueKey(ids.affA, env, roomy);
    keyB = issueKey(ids.affB, env, roomy).key;
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    await seedSalesHistory();
    await Promise.all([startApp('checks', env), startApp('partner-adapter', env), startApp('search-orchestrator', env)]);
    gateway = await startApp('gateway', env);
  });

  afterAll(async () => {
    await stopAppsAndTopology(env);
    await db?.end();
  });

  /**
   * What accepted sales leave behind (the submit issue writes these): the capped
   * offer's daily cap used up, and the person (same email, written differently)
   * bought by the dup offer yesterday and by the old-dup offer 5 days ago (its
   * window is 2 days).
   */
  async function seedSalesHistory() {
    // The slot the capped offer's day cap counts in now (libs/domain caps: scope and period start in the cap's zone).
    await db.query(`INSERT INTO cap_usage (scope, period, period_start, used) VALUES ($1, 'day', $2, 1)`, [
      capScope(ids.ownCapped, null),
      capPeriodStart('day', 'America/Chicago', new Date()),
    ]);
    const emailHash = hashOf('email', `  ${email.toUpperCase()} `)!;
    expect(emailHash).toBe(sha256Hex(email));
    // What the dedupe index stores: the person key of the contract's hash (docs/security.md, Person keys).
    const emailKey = keyedPersonKey(TEST_PERSON_KEY_SECRET, emailHash);
    for (const [offerId, schoolId, daysAgo] of [
      [ids.ownDup, ids.schoolDup, 1],
      [ids.ownOldDup, ids.schoolOld, 5],
    ] as const) {
      const leadId = randomUUID();
      await db.query(
        `INSERT INTO leads (id, kind, affiliate_id, campaign_id, offer_id, api_key_id, lead, consumer_ip, status, code, lead_group_id)
         VALUES ($1, 'direct_post', $2, $3, $4, $5, '{}', '73.12.44.10', 'accepted', 'ACCEPTED', $1)`,
        [leadId, ids.affA, ids.campaign, offerId, keyA.id],
      );
      await db.query(
        `INSERT INTO dedupe_keys (lead_id, key_type, key_hash, offer_id, school_id, affiliate_id, accepted_at)
         VALUES ($1, 'email', $2, $3, $4, $5, now() - make_interval(days => $6))`,
        [leadId, emailKey, offerId, schoolId, ids.affA, daysAgo],
      );
    }
  }

  it('answers the own results at once, then a poll after the partner delay adds the partner results and is done', async () => {
    const first = await search(ids.campaign);
    expect(first.status).toBe(200);
    expect(first.ms).toBeLessThan(1500);
    expect(first.body).toEqual(
      expect.objectContaining({
        code: 'OK',
        status: 'accepted',
        success: true,
        processing_done: false,
        poll_after_ms: 1000,
        accepted_count: 0,
        max_accepted_submissions: 3,
        true_exclusive_accepted: false,
      }),
    );
    // Own offers, best first by priority; a live search shows Northfield once (its best offer).
    expect(offerIds(first)).toEqual([ids.own1, ids.ownNoPayout, ids.ownOldDup]);

    const early = await poll(first.body.svc_lead_id);
    expect(early.status).toBe(200);
    expect(early.body.processing_done).toBe(false);
    expect(early.body.offers).toEqual(first.body.offers);

    await sleep(2600);
    const later = await poll(first.body.svc_lead_id);
    expect(later.body.processing_done).toBe(true);
    expect(later.body).not.toHaveProperty('poll_after_ms');
    // The partner result (priority 20) merges in first; the NY-only partner offer was never asked.
    expect(offerIds(later)).toEqual([ids.pOffer, ids.own1, ids.ownNoPayout, ids.ownOldDup]);
    expect(later.body.offers.slice(1)).toEqual(first.body.offers);
    const asked = await call(sandbox.url, 'GET', '/partners/e2e-delayed/received');
    const sent = asked.body.searches.find((s: { body: { search_id: string } }) => s.body.search_id === first.body.svc_lead_id);
    expect(sent.body.offers).toEqual([{ external_id: `westlake-${ids.pOffer.slice(0, 8)}` }]);
  });

  it('shows every field of the result entry, the caller payouts and never the price', async () => {
    const res = await search(ids.campaign);
    const [nursing, southgate] = res.body.offers;
    expect(nursing).toEqual({
      svc_result_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      campaign_id: ids.campaign,
      offer: {
        id: ids.own1,
        name: 'Northfield Online Nursing',
        offer_type: 'shared',
        is_exclusive: false,
        tcpa_text: 'I agree that Northfield Online Nursing may contact me.',
      },
      school: { name: 'Northfield University', logo_url: 'https://cdn.example.org/nf.png' },
      // msn needs a bachelor: left out of the result. bsn has its own payout; rn-bsn the offer's.
      programs: [
        { value: 'bsn', label: 'BS in Nursing', payout: 30 },
        { value: 'rn-bsn', label: 'RN to BSN', payout: 20 },
      ],
      payout: 30,
      form_fields: [
        {
          name: 'hs_grad_year',
          label: 'High school graduation year',
          type: 'select',
          required: true,
          options: [
            { value: '2012', label: '2012' },
            { value: '2013', label: '2013' },
          ],
        },
        {
          name: 'rn_license',
          label: 'Do you hold an RN license?',
          type: 'select',
          required: false,
          required_when: { program_ids: ['rn-bsn'] },
          options: [
            { value: 'yes', label: 'Yes' },
            { value: 'no', label: 'No' },
          ],
        },
      ],
      expires_at: expect.any(String),
    });
    const ttl = Date.parse(nursing.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(890_000);
    expect(ttl).toBeLessThanOrEqual(900_000);
    // No payout configured on the campaign for this offer: no payout keys at all.
    expect(southgate.offer).toEqual(expect.objectContaining({ offer_type: 'true_exclusive', is_exclusive: true }));
    expect(southgate).not.toHaveProperty('payout');
    expect(southgate.programs).toEqual([{ value: 'gen', label: 'General Studies' }]);
    expect(JSON.stringify(res.body)).not.toMatch(/price|"45"|45\.0/);

    await sleep(2600);
    const later = await poll(res.body.svc_lead_id);
    const partner = later.body.offers[0];
    expect(partner.offer).toEqual(expect.objectContaining({ id: ids.pOffer, offer_type: 'exclusive', is_exclusive: true }));
    expect(partner.school).toEqual({ name: 'Westlake College', logo_url: null });
    expect(partner.payout).toBe(12.5);
    expect(partner.programs.length).toBeGreaterThan(0);
    for (const p of partner.programs) expect(p.payout).toBe(12.5);
    expect(partner.tcpa_text ?? partner.offer.tcpa_text).toMatch(/Westlake/);
    expect(Date.parse(partner.expires_at) - Date.now()).toBeLessThanOrEqual(300_000);
  });

  it('a test search lists every ranked offer and skips the person-level duplicate check', async () => {
    const res = await search(ids.campaign, { svc_is_test_lead: true });
    expect(offerIds(res)).toEqual([ids.own1, ids.ownNoPayout, ids.ownDup, ids.ownOldDup, ids.own1b]);
    const schools = res.body.offers.map((o: { school: { name: string } }) => o.school.name);
    expect(schools.filter((s: string) => s === 'Northfield University')).toHaveLength(2);
    // Caps still apply to test searches.
    expect(offerIds(res)).not.toContain(ids.ownCapped);
  });

  it('eligibility decides: a lead from NY sees the NY-only offer and not the TX/CA one', async () => {
    const lead = { ...body(ids.campaign).lead, address: { state: 'ny', zip_code: '10001' } };
    const res = await search(ids.campaign, { lead });
    expect(offerIds(res)).toContain(ids.ownNy);
    expect(offerIds(res)).not.toContain(ids.own1);
    // Without a date of birth the min_age rule cannot hold.
    const noDob = { ...body(ids.campaign).lead, personal: { first_name: 'Ada', last_name: 'Lovelace', email } };
    expect(offerIds(await search(ids.campaign, { lead: noDob }))).not.toContain(ids.own1);
  });

  it('the duplicate check goes by person and window; another person sees the dup offer', async () => {
    const other = { ...body(ids.campaign).lead, personal: { ...body(ids.campaign).lead.personal, email: 'grace@example.com' } };
    const res = await search(ids.campaign, { lead: other });
    expect(offerIds(res)).toContain(ids.ownDup);
    const decisions = await db.query('SELECT offer_decisions FROM searches WHERE id = $1', [(await search(ids.campaign)).body.svc_lead_id]);
    expect(decisions.rows[0].offer_decisions[ids.ownDup]).toEqual({ shown: false, reason: 'duplicate' });
    expect(decisions.rows[0].offer_decisions[ids.ownCapped]).toEqual({ shown: false, reason: 'cap_reached' });
    expect(decisions.rows[0].offer_decisions[ids.ownNy]).toEqual({ shown: false, reason: 'not_eligible', detail: 'states' });
    expect(decisions.rows[0].offer_decisions[ids.own1b]).toEqual({ shown: false, reason: 'school_already_shown' });
  });

  it('a lead whose sale ended (true_exclusive) gets no more results from partners', async () => {
    const res = await search(ids.campaign);
    // What an accepted true_exclusive submit of the search leaves (docs/data-model.md): its lead, its sale, the counters.
    const searchId = res.body.svc_lead_id as string;
    const saleLead = randomUUID();
    await db.query(
      `INSERT INTO leads (id, kind, affiliate_id, campaign_id, offer_id, api_key_id, lead, consumer_ip, status, code, lead_group_id)
       VALUES ($1, 'direct_post', $2, $3, $4, $5, '{}', '73.12.44.10', 'accepted', 'ACCEPTED', $6)`,
      [saleLead, ids.affA, ids.campaign, ids.ownNoPayout, keyA.id, searchId],
    );
    await db.query(
      `INSERT INTO sales (lead_id, search_id, lead_group_id, offer_id, school_id, campaign_id, affiliate_id, offer_type, status)
       VALUES ($1, $2, $2, $3, $4, $5, $6, 'true_exclusive', 'accepted')`,
      [saleLead, searchId, ids.ownNoPayout, ids.schoolSouth, ids.campaign, ids.affA],
    );
    await db.query('UPDATE searches SET true_exclusive_accepted = true, accepted_count = 1 WHERE id = $1', [searchId]);
    await sleep(2600);
    const later = await poll(res.body.svc_lead_id);
    expect(later.body.processing_done).toBe(true);
    expect(offerIds(later)).not.toContain(ids.pOffer);
    expect(later.body.true_exclusive_accepted).toBe(true);
  });

  it('a partner that never answers closes the search at its timeout', async () => {
    const res = await search(ids.campaignTimeout);
    expect(res.body.processing_done).toBe(false);
    expect(offerIds(res)).toEqual([ids.own1]);
    await sleep(1000);
    expect((await poll(res.body.svc_lead_id)).body.processing_done).toBe(false);
    await sleep(1000);
    const done = await poll(res.body.svc_lead_id);
    expect(done.body.processing_done).toBe(true);
    expect(offerIds(done)).toEqual([ids.own1]);
    const calls = await db.query('SELECT status FROM search_partner_calls WHERE search_id = $1', [res.body.svc_lead_id]);
    expect(calls.rows).toEqual([{ status: 'timeout' }]);
  });

  it('a slow partner does not hold up a fast one: concurrent searches each finish on their own partner time', async () => {
    const [slow, fast] = await Promise.all([search(ids.campaignSlow), search(ids.campaign)]);
    await sleep(2200);
    expect((await poll(fast.body.svc_lead_id)).body.processing_done).toBe(true);
    expect((await poll(slow.body.svc_lead_id)).body.processing_done).toBe(false);
    await sleep(700);
    const slowDone = await poll(slow.body.svc_lead_id);
    expect(slowDone.body.processing_done).toBe(true);
    expect(offerIds(slowDone)).toEqual([ids.ownNoPayout, ids.pSlowOffer]);
  });

  it('another affiliate key gets 404 for the search, like an unknown or malformed id', async () => {
    const res = await search(ids.campaign);
    for (const [searchId, key] of [
      [res.body.svc_lead_id, keyB],
      [randomUUID(), keyA.key],
      ['not-a-uuid', keyA.key],
    ]) {
      const answer = await poll(searchId, key);
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual(expect.objectContaining({ code: 'NOT_FOUND', status: 'invalid' }));
      expect(answer.text).not.toContain(ids.own1);
    }
  });

  it("403 FORBIDDEN on a poll of the caller's search once its campaign is no longer the caller's", async () => {
    const res = await search(ids.campaignMoved);
    expect(res.status).toBe(200);
    const moved = catalog();
    moved.campaigns = moved.campaigns.map((c) => (c.id === ids.campaignMoved ? { ...c, affiliate_id: ids.affB } : c));
    applyCatalog({ campaigns: moved.campaigns.filter((c) => c.id === ids.campaignMoved) }, env);
    const answer = await poll(res.body.svc_lead_id);
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual(expect.objectContaining({ code: 'FORBIDDEN', status: 'invalid', reason: 'Not permitted' }));
    expect(answer.text).not.toContain(ids.own1);
  });

  it('answers a poll from PostgreSQL when Redis lost the state', async () => {
    const res = await search(ids.campaign);
    await sleep(2600);
    const fromRedis = await poll(res.body.svc_lead_id);
    const { default: Redis } = await import('ioredis');
    const redis = new Redis(env.REDIS_URL, { keyPrefix: env.REDIS_KEY_PREFIX });
    await redis.del(`search:${res.body.svc_lead_id}`);
    redis.disconnect();
    const fromPg = await poll(res.body.svc_lead_id);
    expect(fromPg.body).toEqual(fromRedis.body);
  });
});
