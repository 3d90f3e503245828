import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { MAX_ACCEPTED_SUBMISSIONS } from '@lr/contracts';
import { POLL_AFTER_MS, SEARCH_STATE_MARGIN_SECONDS, type SearchAnswer, searchStateKey } from '@lr/search-state';
import { capPeriodStart, leadDedupeKeys, optOutKeysOf, optOutRecord } from '@lr/domain';
import { OptOuts } from '@lr/persistence';
import {
  answerOf,
  callRows,
  CAP_TZ,
  capSlot,
  mediumDataSource,
  mediumRedis,
  offerIdsOf,
  type OfferSpec,
  orchestrator,
  partnerAnswer,
  partnerCallsOf,
  person,
  redisSearch,
  resultRows,
  searchRequest,
  searchRow,
  soldToPerson,
  useCap,
  world,
  type World,
} from '../../../../test/support/medium-world';
import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';

/**
 * StartSearch on the real PostgreSQL and Redis, no broker: what a search
 * request stores, what it publishes for polls, what it answers and which
 * partner requests its handler would send.
 */

/** A campaign of four own offers (two of one school) and three partner offers of two networks, one of them ineligible (Texas lead). */
const MAIN = {
  northLow: { school: 'north', priority: 10, payout: 20 },
  northHigh: { school: 'north', priority: 10, payout: 30 },
  east: { school: 'east', priority: 10, payout: 25 },
  south: { school: 'south', priority: 5, payout: 50 },
  west1: { school: 'west1', partner: 'p1', priority: 10, payout: 35 },
  west2: { school: 'west2', partner: 'p1', priority: 3 },
  westOut: { school: 'west3', partner: 'p1', eligibility: { states: ['CA'] } },
  far: { school: 'far', partner: 'p2', priority: 1, payout: 10 },
} satisfies Record<string, OfferSpec>;
type MainKey = keyof typeof MAIN;

const byPartner = <T extends { partner: { id: string } }>(list: readonly T[]): T[] =>
  [...list].sort((a, b) => a.partner.id.localeCompare(b.partner.id));
const callsOf = partnerCallsOf;

describe('StartSearch (medium: real PostgreSQL and Redis)', () => {
  let ds: DataSource;
  let redis: Redis;
  let orch: ReturnType<typeof orchestrator>;

  beforeAll(async () => {
    ds = await mediumDataSource();
    redis = mediumRedis();
    orch = orchestrator(ds, redis);
  });

  afterAll(async () => {
    await ds?.destroy();
    await redis?.quit();
  });

  const ids = <K extends string>(w: World<K>, ...keys: K[]) => keys.map((k) => w.ids.offers[k]);

  it('a live search stores the search, its own results best first (one per school), one pending call per partner, and answers them', async () => {
    const w = await world(ds, MAIN);
    const lead = person();
    const now = new Date();
    const msg = searchRequest(w, lead, { requestedAt: now });

    const started = await orch.start.run(msg, now);

    // The answer: the contract envelope, still processing while partners are asked, the own offers best first.
    const answer = answerOf(started.body);
    expect(answer).toMatchObject({
      code: 'OK',
      status: 'accepted',
      reason: 'OK',
      success: true,
      svc_lead_id: msg.searchId,
      processing_done: false,
      poll_after_ms: POLL_AFTER_MS,
      accepted_count: 0,
      max_accepted_submissions: MAX_ACCEPTED_SUBMISSIONS,
      true_exclusive_accepted: false,
    });
    // priority 10 (payout 30, then 25; the school's payout-20 offer is not shown), then priority 5.
    expect(offerIdsOf(answer.offers)).toEqual(ids(w, 'northHigh', 'east', 'south'));
    const [first] = answer.offers;
    expect(first).toEqual({
      svc_result_id: expect.any(String),
      campaign_id: w.ids.campaign,
      offer: {
        id: w.ids.offers.northHigh,
        name: w.offerName('northHigh'),
        offer_type: 'shared',
        is_exclusive: false,
        tcpa_text: `I agree that ${w.offerName('northHigh')} may contact me.`,
      },
      school: { name: w.schoolName('northHigh'), logo_url: null },
      programs: [{ value: 'gen', label: 'General Studies', payout: 30 }],
      payout: 30,
      form_fields: [],
      expires_at: new Date(now.getTime() + 900_000).toISOString(),
    });

    // The search row: lead, person keys, decisions for every offer, the order shown.
    const row = (await searchRow(ds, msg.searchId))!;
    const resultIds = answer.offers.map((o) => o.svc_result_id);
    expect(row).toMatchObject({
      affiliate_id: w.ids.affiliate,
      campaign_id: w.ids.campaign,
      api_key_id: w.ids.apiKey,
      is_test: false,
      lead,
      tracking: msg.tracking,
      consumer_ip: msg.consumerIp,
      state_version: 1,
      accepted_count: 0,
      true_exclusive_accepted: false,
      processing_done_at: null,
      result_order: resultIds,
      person_keys: leadDedupeKeys(TEST_PERSON_KEY_SECRET, lead),
    });
    expect(row.created_at.toISOString()).toBe(msg.requestedAt);
    expect(row.closes_at.getTime()).toBe(now.getTime() + orch.config.search.openSeconds * 1000);
    const shown = (k: MainKey) => ({ shown: true, result_id: resultIds[ids(w, 'northHigh', 'east', 'south').indexOf(w.ids.offers[k])] });
    expect(row.offer_decisions).toEqual({
      [w.ids.offers.northHigh]: shown('northHigh'),
      [w.ids.offers.east]: shown('east'),
      [w.ids.offers.south]: shown('south'),
      [w.ids.offers.northLow]: { shown: false, reason: 'school_already_shown' },
      [w.ids.offers.west1]: { shown: false, reason: 'partner_asked', partner: w.partnerName('p1') },
      [w.ids.offers.west2]: { shown: false, reason: 'partner_asked', partner: w.partnerName('p1') },
      [w.ids.offers.far]: { shown: false, reason: 'partner_asked', partner: w.partnerName('p2') },
      [w.ids.offers.westOut]: { shown: false, reason: 'not_eligible', detail: 'states' },
    });

    // One result row per shown offer, its entry exactly as answered.
    const results = await resultRows(ds, msg.searchId);
    expect([...results.keys()].sort()).toEqual([...resultIds].sort());
    for (const entry of answer.offers) {
      const r = results.get(entry.svc_result_id)!;
      expect(r).toMatchObject({ offer_id: entry.offer.id, campaign_id: w.ids.campaign, partner_data: null });
      expect(r.entry).toEqual(entry);
      expect(r.expires_at.toISOString()).toBe(entry.expires_at);
    }

    // One pending call per partner network, with its qualifying offers only.
    const calls = await callRows(ds, msg.searchId);
    expect(calls.size).toBe(2);
    expect(calls.get(w.ids.partners.p1)).toMatchObject({ status: 'pending', offer_ids: ids(w, 'west1', 'west2'), answered_at: null });
    expect(calls.get(w.ids.partners.p2)).toMatchObject({ status: 'pending', offer_ids: ids(w, 'far'), answered_at: null });

    // The partner request the handler publishes: one message, every partner once, only the qualifying partner offers.
    expect(started.partnerRequest?.partners.map((p) => p.partner.id).sort()).toEqual([w.ids.partners.p1, w.ids.partners.p2].sort());
    const closesAt = row.closes_at.toISOString();
    const partnerRef = (p: string) => ({
      id: w.ids.partners[p],
      name: w.partnerName(p),
      adapter: 'sandbox',
      baseUrl: `http://127.0.0.1:4100/partners/${p}`,
      timeoutMs: 5000,
    });
    // Each partner's view of the lead (the default search fields): no contact data, hashed email and phone, an age band.
    const view = {
      personal: { age_band: expect.stringMatching(/^(25-34|35-44)$/) },
      address: { state: 'TX', zip_code: '75001' },
      education: { education_level: 'associate', high_school_graduation_year: '2013' },
      hashed: { email: expect.stringMatching(/^[0-9a-f]{64}$/), phone: expect.stringMatching(/^[0-9a-f]{64}$/) },
    };
    const { ip_address: _ip, ...attribution } = msg.tracking;
    const common = { searchId: msg.searchId, campaignId: w.ids.campaign, lead: view, tracking: attribution, isTest: false, closesAt };
    const published = JSON.stringify(started.partnerRequest);
    for (const contact of [
      lead.personal!.first_name!,
      lead.personal!.last_name!,
      lead.personal!.email!,
      lead.personal!.phone!,
      '1995-04-12',
    ])
      expect(published).not.toContain(contact);
    expect(byPartner(callsOf(started))).toEqual(
      byPartner([
        {
          ...common,
          partner: partnerRef('p1'),
          offers: [
            { offerId: w.ids.offers.west1, externalId: w.externalId('west1') },
            { offerId: w.ids.offers.west2, externalId: w.externalId('west2') },
          ],
        },
        { ...common, partner: partnerRef('p2'), offers: [{ offerId: w.ids.offers.far, externalId: w.externalId('far') }] },
      ]),
    );
  });

  it('writes the Redis hash search:<id> with the meta of version 1 and one r:<result id> entry per shown result', async () => {
    const w = await world(ds, MAIN);
    const now = new Date();
    const msg = searchRequest(w, person(), { requestedAt: now });

    const answer = answerOf((await orch.start.run(msg, now)).body);

    const cached = (await redisSearch(redis, msg.searchId))!;
    const order = answer.offers.map((o) => o.svc_result_id);
    expect(cached.v).toBe(1);
    expect(cached.meta).toEqual({
      searchId: msg.searchId,
      version: 1,
      affiliateId: w.ids.affiliate,
      campaignId: w.ids.campaign,
      isTest: false,
      createdAt: msg.requestedAt,
      closesAt: new Date(now.getTime() + orch.config.search.openSeconds * 1000).toISOString(),
      processingDone: false,
      acceptedCount: 0,
      trueExclusiveAccepted: false,
      order,
    });
    expect([...cached.entries.keys()].sort()).toEqual([...order].sort());
    for (const entry of answer.offers) expect(cached.entries.get(entry.svc_result_id)).toEqual(entry);
    // Kept while its results can be submitted (the latest expires_at), plus the margin; PostgreSQL answers after that.
    const latest = Math.max(...answer.offers.map((o) => Date.parse(o.expires_at!)));
    const needed = Math.ceil((latest - Date.now()) / 1000) + SEARCH_STATE_MARGIN_SECONDS;
    expect(cached.ttl).toBeGreaterThanOrEqual(needed - 5);
    expect(cached.ttl).toBeLessThanOrEqual(needed + 1);
  });

  it('an offer whose cap is full now is left out as cap_reached (its own cap or the campaign cap on it); a cap with room or full only in an earlier period is not', async () => {
    const w = await world(ds, {
      full: { school: 's1', priority: 5, caps: [{ period: 'day', limit: 2 }] },
      campaignFull: { school: 's2', priority: 4, campaignCaps: [{ period: 'week', limit: 1 }] },
      room: { school: 's3', priority: 3, caps: [{ period: 'day', limit: 2 }] },
      lastPeriod: { school: 's4', priority: 2, caps: [{ period: 'day', limit: 1 }] },
      partnerFull: { school: 's5', partner: 'p1', caps: [{ period: 'month', limit: 1 }] },
      partnerRoom: { school: 's6', partner: 'p1' },
    });
    const now = new Date();
    await useCap(ds, capSlot(w.ids.offers.full, null, 'day', now), 2);
    await useCap(ds, capSlot(w.ids.offers.campaignFull, w.ids.campaign, 'week', now), 1);
    await useCap(ds, capSlot(w.ids.offers.room, null, 'day', now), 1);
    const yesterday = new Date(capPeriodStart('day', CAP_TZ, now).getTime() - 1);
    await useCap(ds, capSlot(w.ids.offers.lastPeriod, null, 'day', yesterday), 1);
    await useCap(ds, capSlot(w.ids.offers.partnerFull, null, 'month', now), 1);
    const msg = searchRequest(w, person(), { requestedAt: now });

    const started = await orch.start.run(msg, now);

    expect(offerIdsOf(answerOf(started.body).offers)).toEqual(ids(w, 'room', 'lastPeriod'));
    const row = (await searchRow(ds, msg.searchId))!;
    for (const k of ['full', 'campaignFull', 'partnerFull'] as const) {
      expect(row.offer_decisions[w.ids.offers[k]]).toEqual({ shown: false, reason: 'cap_reached' });
    }
    expect(row.offer_decisions[w.ids.offers.room]).toMatchObject({ shown: true });
    expect(row.offer_decisions[w.ids.offers.lastPeriod]).toMatchObject({ shown: true });
    expect(callsOf(started)).toHaveLength(1);
    expect(callsOf(started)[0].offers).toEqual([{ offerId: w.ids.offers.partnerRoom, externalId: w.externalId('partnerRoom') }]);
    expect((await callRows(ds, msg.searchId)).get(w.ids.partners.p1)!.offer_ids).toEqual(ids(w, 'partnerRoom'));
    // A search only reads the caps: nothing is counted.
    const used: Array<{ used: number }> = await ds.query(`SELECT used FROM cap_usage WHERE scope = $1`, [
      capSlot(w.ids.offers.room, null, 'day', now).scope,
    ]);
    expect(used).toEqual([{ used: 1 }]);
  });

  const DUPES = {
    sold: { school: 's1', priority: 3 },
    soldLongAgo: { school: 's2', priority: 2, duplicateWindowDays: 7 },
    soldToAnother: { school: 's3', priority: 1 },
    partnerSold: { school: 's4', partner: 'p1' },
    partnerFresh: { school: 's5', partner: 'p1' },
  } satisfies Record<string, OfferSpec>;

  it('an offer sold to the person within its window is left out as duplicate (own and partner offers); outside its window, or sold to someone else, it is shown', async () => {
    const w = await world(ds, DUPES);
    const lead = person();
    await soldToPerson(ds, w, lead, 'sold', '1 day');
    await soldToPerson(ds, w, lead, 'soldLongAgo', '10 days');
    await soldToPerson(ds, w, person(), 'soldToAnother', '1 day');
    await soldToPerson(ds, w, lead, 'partnerSold', '2 days');
    const now = new Date();
    const msg = searchRequest(w, lead, { requestedAt: now });

    const started = await orch.start.run(msg, now);

    expect(offerIdsOf(answerOf(started.body).offers)).toEqual(ids(w, 'soldLongAgo', 'soldToAnother'));
    const row = (await searchRow(ds, msg.searchId))!;
    expect(row.offer_decisions[w.ids.offers.sold]).toEqual({ shown: false, reason: 'duplicate' });
    expect(row.offer_decisions[w.ids.offers.partnerSold]).toEqual({ shown: false, reason: 'duplicate' });
    expect(row.offer_decisions[w.ids.offers.partnerFresh]).toEqual({ shown: false, reason: 'partner_asked', partner: w.partnerName('p1') });
    expect(callsOf(started).map((r) => r.offers.map((o) => o.offerId))).toEqual([ids(w, 'partnerFresh')]);
  });

  it('a test search skips the person check: the offers sold to the person are shown and asked, and no person keys are stored', async () => {
    const w = await world(ds, DUPES);
    const lead = person();
    await soldToPerson(ds, w, lead, 'sold', '1 day');
    await soldToPerson(ds, w, lead, 'partnerSold', '2 days');
    const now = new Date();
    const msg = searchRequest(w, lead, { requestedAt: now, isTest: true });

    const started = await orch.start.run(msg, now);

    expect(offerIdsOf(answerOf(started.body).offers)).toEqual(ids(w, 'sold', 'soldLongAgo', 'soldToAnother'));
    const row = (await searchRow(ds, msg.searchId))!;
    expect(row.is_test).toBe(true);
    expect(row.person_keys).toEqual([]);
    expect(row.offer_decisions[w.ids.offers.sold]).toMatchObject({ shown: true });
    expect(callsOf(started)).toHaveLength(1);
    expect(callsOf(started)[0]).toMatchObject({
      isTest: true,
      offers: [{ offerId: w.ids.offers.partnerSold }, { offerId: w.ids.offers.partnerFresh }],
    });
    expect((await redisSearch(redis, msg.searchId))!.meta.isTest).toBe(true);
  });

  it('a test search shows every ranked offer, two offers of one school included', async () => {
    const w = await world(ds, MAIN);
    const now = new Date();
    const msg = searchRequest(w, person(), { requestedAt: now, isTest: true });

    const started = await orch.start.run(msg, now);

    const answer = answerOf(started.body);
    expect(offerIdsOf(answer.offers)).toEqual(ids(w, 'northHigh', 'east', 'northLow', 'south'));
    const row = (await searchRow(ds, msg.searchId))!;
    expect(row.result_order).toEqual(answer.offers.map((o) => o.svc_result_id));
    expect(row.offer_decisions[w.ids.offers.northLow]).toEqual({ shown: true, result_id: answer.offers[2].svc_result_id });
    expect((await resultRows(ds, msg.searchId)).size).toBe(4);
  });

  it('an ineligible offer is left out as not_eligible with the failing rule, one with no qualifying program as no_eligible_program, a paused one as offer_inactive; a search with no partner to ask is done at once', async () => {
    const w = await world(ds, {
      eligible: { school: 's1', priority: 2 },
      wrongState: { school: 's2', eligibility: { states: ['CA', 'NY'] } },
      tooYoung: { school: 's3', eligibility: { min_age: 40 } },
      noProgram: { school: 's4', programs: [{ value: 'msn', label: 'MS in Nursing', eligibility: { education_levels: ['bachelor'] } }] },
      someProgram: {
        school: 's5',
        priority: 1,
        payout: 12.5,
        programs: [
          { value: 'msn', label: 'MS in Nursing', eligibility: { education_levels: ['bachelor'] } },
          { value: 'gen', label: 'General Studies' },
        ],
      },
      paused: { school: 's6', status: 'paused' },
      partnerWrongState: { school: 's7', partner: 'p1', eligibility: { states: ['CA'] } },
    });
    const now = new Date();
    const msg = searchRequest(w, person(), { requestedAt: now });

    const started = await orch.start.run(msg, now);

    const answer = answerOf(started.body);
    expect(offerIdsOf(answer.offers)).toEqual(ids(w, 'eligible', 'someProgram'));
    // Only the programs the lead qualifies for are shown, with the campaign's payout.
    expect(answer.offers[1]).toMatchObject({ programs: [{ value: 'gen', label: 'General Studies', payout: 12.5 }], payout: 12.5 });
    const row = (await searchRow(ds, msg.searchId))!;
    expect(row.offer_decisions[w.ids.offers.wrongState]).toEqual({ shown: false, reason: 'not_eligible', detail: 'states' });
    expect(row.offer_decisions[w.ids.offers.tooYoung]).toEqual({ shown: false, reason: 'not_eligible', detail: 'min_age' });
    expect(row.offer_decisions[w.ids.offers.noProgram]).toEqual({
      shown: false,
      reason: 'no_eligible_program',
      detail: 'programs.msn.education_levels',
    });
    expect(row.offer_decisions[w.ids.offers.paused]).toEqual({ shown: false, reason: 'offer_inactive' });
    expect(row.offer_decisions[w.ids.offers.partnerWrongState]).toEqual({ shown: false, reason: 'not_eligible', detail: 'states' });

    // Nobody to ask: done in the answer, in PostgreSQL and in Redis.
    expect(callsOf(started)).toEqual([]);
    expect((await callRows(ds, msg.searchId)).size).toBe(0);
    expect(answer.processing_done).toBe(true);
    expect(answer).not.toHaveProperty('poll_after_ms');
    expect(row.processing_done_at?.toISOString()).toBe(msg.requestedAt);
    expect((await redisSearch(redis, msg.searchId))!.meta.processingDone).toBe(true);
  });

  it('a lead eligible for no offer is judged without sale facts, yet a suppressed person’s search is still stored without contact data', async () => {
    const w = await world(ds, { elsewhere: { school: 's1', eligibility: { states: ['CA'] } }, paused: { school: 's2', status: 'paused' } });
    const suppressed = person();
    await new OptOuts(ds).record(
      optOutRecord({
        id: randomUUID(),
        receivedAt: new Date(),
        source: 'operator',
        affiliateId: null,
        apiKeyId: null,
        reference: null,
        keys: optOutKeysOf(TEST_PERSON_KEY_SECRET, { email: suppressed.personal!.email! }),
        actor: 'operator',
        relay: `medium-${randomUUID().slice(0, 8)}`,
      }),
    );
    const kept = person();
    const now = new Date();
    const [erased, stored] = [searchRequest(w, suppressed, { requestedAt: now }), searchRequest(w, kept, { requestedAt: now })];

    for (const msg of [erased, stored]) expect(answerOf((await orch.start.run(msg, now)).body).offers).toEqual([]);

    for (const msg of [erased, stored]) {
      // The eligibility decided every offer: no sale fact changed a decision.
      expect((await searchRow(ds, msg.searchId))!.offer_decisions).toEqual({
        [w.ids.offers.elsewhere]: { shown: false, reason: 'not_eligible', detail: 'states' },
        [w.ids.offers.paused]: { shown: false, reason: 'offer_inactive' },
      });
    }
    const [erasedRow, storedRow] = [(await searchRow(ds, erased.searchId))!, (await searchRow(ds, stored.searchId))!];
    expect(erasedRow.lead.personal).toBeUndefined();
    expect(JSON.stringify(erasedRow.lead)).not.toContain(suppressed.personal!.last_name!);
    expect(erasedRow.consumer_ip).toBe('');
    expect(storedRow.lead.personal).toEqual(kept.personal);
  });

  it('a redelivered request stores once, answers the same list and returns the partner requests still pending', async () => {
    const w = await world(ds, MAIN);
    const now = new Date();
    const msg = searchRequest(w, person(), { requestedAt: now });
    const first = await orch.start.run(msg, now);
    const stored = (await searchRow(ds, msg.searchId))!;

    const again = await orch.start.run(msg, new Date(now.getTime() + 500));

    const firstAnswer = answerOf(first.body);
    const againAnswer = answerOf(again.body);
    expect(againAnswer).toEqual(firstAnswer);
    expect(byPartner(callsOf(again))).toEqual(byPartner(callsOf(first)));
    expect(await searchRow(ds, msg.searchId)).toEqual(stored);
    expect((await resultRows(ds, msg.searchId)).size).toBe(3);
    expect((await ds.query(`SELECT count(*)::int AS n FROM searches WHERE id = $1`, [msg.searchId]))[0].n).toBe(1);

    // Once p1 answered (here: timed out), a redelivery re-sends only p2's request.
    await orch.merge.run(partnerAnswer(w, msg.searchId, 'p1', [], { outcome: 'timeout', detail: 'no answer in 5000 ms' }));
    const third = await orch.start.run(msg, new Date(now.getTime() + 1000));
    expect(callsOf(third).map((r) => r.partner.id)).toEqual([w.ids.partners.p2]);
    expect(callsOf(third)[0].offers).toEqual([{ offerId: w.ids.offers.far, externalId: w.externalId('far') }]);
    expect(offerIdsOf(answerOf(third.body).offers)).toEqual(offerIdsOf(firstAnswer.offers));
    expect((await searchRow(ds, msg.searchId))!.state_version).toBe(2);
  });

  it('a request past its replyBy stores nothing, writes nothing to Redis and answers no body', async () => {
    const w = await world(ds, MAIN);
    const now = new Date();
    const msg = searchRequest(w, person(), { requestedAt: new Date(now.getTime() - 3000), replyBy: now });

    const started = await orch.start.run(msg, now);

    expect(started).toEqual({ body: null, partnerRequest: null });
    expect(await searchRow(ds, msg.searchId)).toBeUndefined();
    expect((await resultRows(ds, msg.searchId)).size).toBe(0);
    expect((await callRows(ds, msg.searchId)).size).toBe(0);
    expect(await redis.exists(searchStateKey(msg.searchId))).toBe(0);
  });

  it('a request redelivered past its replyBy after it was stored answers no body, rebuilds Redis and re-sends the pending partner requests', async () => {
    const w = await world(ds, MAIN);
    const now = new Date();
    const msg = searchRequest(w, person(), { requestedAt: now, replyBy: new Date(now.getTime() + 3000) });
    const first = await orch.start.run(msg, now);
    const cachedBefore = (await redisSearch(redis, msg.searchId))!;
    await redis.del(searchStateKey(msg.searchId));

    const late = await orch.start.run(msg, new Date(now.getTime() + 3000));

    expect(late.body).toBeNull();
    expect(byPartner(callsOf(late))).toEqual(byPartner(callsOf(first)));
    const cached = (await redisSearch(redis, msg.searchId))!;
    expect(cached.meta).toEqual(cachedBefore.meta);
    expect(cached.entries).toEqual(cachedBefore.entries);
    expect((await searchRow(ds, msg.searchId))!.state_version).toBe(1);
  });

  it('two concurrent runs of the same request store one search, and both answer the same list (race)', async () => {
    const w = await world(ds, MAIN);
    // Several searches, each delivered twice at once, so both orders of the race are likely to occur.
    const runs = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const now = new Date();
        const msg = searchRequest(w, person(), { requestedAt: now, searchId: randomUUID() });
        const [a, b] = await Promise.all([orch.start.run(msg, now), orch.start.run(msg, now)]);
        return { msg, a, b };
      }),
    );

    for (const { msg, a, b } of runs) {
      const answerA: SearchAnswer = answerOf(a.body);
      const answerB: SearchAnswer = answerOf(b.body);
      expect(answerB.offers).toEqual(answerA.offers);
      expect(offerIdsOf(answerA.offers)).toEqual(ids(w, 'northHigh', 'east', 'south'));
      const row = (await searchRow(ds, msg.searchId))!;
      expect(row.result_order).toEqual(answerA.offers.map((o) => o.svc_result_id));
      expect(row.state_version).toBe(1);
      const results = await resultRows(ds, msg.searchId);
      expect([...results.keys()].sort()).toEqual(answerA.offers.map((o) => o.svc_result_id).sort());
      expect((await callRows(ds, msg.searchId)).size).toBe(2);
      // Both runs name the same partner calls (their message ids are per search and partner, so the broker sends each once).
      expect(byPartner(callsOf(b))).toEqual(byPartner(callsOf(a)));
      const cached = (await redisSearch(redis, msg.searchId))!;
      expect(cached.meta.order).toEqual(row.result_order);
      expect([...cached.entries.keys()].sort()).toEqual([...row.result_order].sort());
    }
  });
});
