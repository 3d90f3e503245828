import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { searchStateKey } from '@lr/search-state';
import type { Lead } from '@lr/domain';
import { SearchRepository } from '@lr/persistence';
import {
  acceptedSaleOnSearch,
  answerOf,
  callRows,
  capSlot,
  mediumDataSource,
  mediumRedis,
  type OfferSpec,
  oneAnswer,
  orchestrator,
  partnerAnswer,
  partnerAnswers,
  partnerCallsOf,
  partnerResult,
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
import { MergePartnerAnswer } from './merge-partner-answer.usecase';

/**
 * MergePartnerAnswer on the real PostgreSQL and Redis, no broker: searches
 * are started by StartSearch itself, then partner answers are merged; each
 * test asserts what PostgreSQL (searches, results, search_partner_calls) and
 * the Redis hash hold afterwards.
 */

/**
 * One own offer (school north) shown at once; partner p1 is asked about pa,
 * pb and pNorth (a second offer of school north), not about pOut (not
 * eligible for a Texas lead); partner p2 about pc.
 */
const MERGE = {
  own: { school: 'north', priority: 10, payout: 20 },
  pa: { school: 'west', partner: 'p1', priority: 10, payout: 30 },
  pb: { school: 'south', partner: 'p1', priority: 5, payout: 40 },
  pNorth: { school: 'north', partner: 'p1', priority: 10, payout: 50 },
  pOut: { school: 'out', partner: 'p1', eligibility: { states: ['CA'] } },
  pc: { school: 'east', partner: 'p2', priority: 10, payout: 25 },
} satisfies Record<string, OfferSpec>;

/**
 * The real repository, except that the first `parties` reads of a partner
 * answer's context wait for each other before returning: every answer then
 * merges on the same version, so all but one must lose the optimistic write
 * and read again (nothing is mocked: every read and write goes to PostgreSQL).
 */
/**
 * Holds the first merge between its read and its write until a second merge
 * of the same search has begun (its read then waits for the search's row
 * lock), and records the version each merge read.
 */
/** Records the version each merge read (every read and write goes to PostgreSQL). */
class CountMerges extends SearchRepository {
  readonly versionsRead: number[] = [];

  override async mergeAnswer(...[q, merge]: Parameters<SearchRepository['mergeAnswer']>) {
    return super.mergeAnswer(q, async (search) => {
      this.versionsRead.push(search.version);
      return merge(search);
    });
  }
}

class HoldFirstMerge extends SearchRepository {
  readonly versionsRead: number[] = [];
  private calls = 0;
  private secondBegun!: () => void;
  private readonly begun = new Promise<void>((resolve) => (this.secondBegun = resolve));

  override async mergeAnswer(...[q, merge]: Parameters<SearchRepository['mergeAnswer']>) {
    const call = ++this.calls;
    if (call === 2) this.secondBegun();
    return super.mergeAnswer(q, async (search) => {
      this.versionsRead.push(search.version);
      if (call === 1) {
        await this.begun;
        await new Promise((r) => setTimeout(r, 200));
      }
      return merge(search);
    });
  }
}

describe('MergePartnerAnswer (medium: real PostgreSQL and Redis)', () => {
  let ds: DataSource;
  let redis: Redis;
  let orch: ReturnType<typeof orchestrator>;

  beforeAll(async () => {
    ds = await mediumDataSource(6);
    redis = mediumRedis();
    orch = orchestrator(ds, redis);
  });

  afterAll(async () => {
    await ds?.destroy();
    await redis?.quit();
  });

  const ids = <K extends string>(w: World<K>, ...keys: K[]) => keys.map((k) => w.ids.offers[k]);

  /** A search started by StartSearch: its request, its first answer's result ids, and the offer ids of its list. */
  async function started<K extends string>(w: World<K>, o: { lead?: Lead; isTest?: boolean; requestedAt?: Date } = {}) {
    const lead = o.lead ?? person();
    const msg = searchRequest(w, lead, { isTest: o.isTest, requestedAt: o.requestedAt });
    const first = await orch.start.run(msg);
    const answer = answerOf(first.body);
    return {
      msg,
      lead,
      searchId: msg.searchId,
      first,
      resultIdOf: (k: K) => answer.offers.find((e) => e.offer.id === w.ids.offers[k])!.svc_result_id,
    };
  }

  /** The offer ids of the search's list, best first, as PostgreSQL holds it. */
  async function listed(searchId: string): Promise<string[]> {
    const row = (await searchRow(ds, searchId))!;
    const results = await resultRows(ds, searchId);
    return row.result_order.map((id) => results.get(id)!.offer_id);
  }

  it('reads the list shown so far with what each result ranks by (its offer, school, priority, source, name and payout)', async () => {
    const w = await world(ds, MERGE);
    const s = await started(w);
    await orch.merge.run(partnerAnswer(w, s.searchId, 'p1', [partnerResult(w, 'pa')]));
    const results = await resultRows(ds, s.searchId);
    const idOf = (k: keyof typeof MERGE) => [...results.values()].find((r) => r.offer_id === w.ids.offers[k])!.id;
    const context = await new SearchRepository(ds).partnerAnswerContext({
      searchId: s.searchId,
      partnerIds: [w.ids.partners.p2],
      offerIds: ids(w, 'pc'),
      slots: [],
    });
    expect(context!.shown).toEqual([
      {
        resultId: idOf('pa'),
        offerId: w.ids.offers.pa,
        schoolId: w.ids.schools.west,
        priority: 10,
        source: 'partner',
        name: w.offerName('pa'),
        payout: 3000,
      },
      {
        resultId: idOf('own'),
        offerId: w.ids.offers.own,
        schoolId: w.ids.schools.north,
        priority: 10,
        source: 'own',
        name: w.offerName('own'),
        payout: 2000,
      },
    ]);
  });

  it("a partner's qualifying results are added in rank order and its call is answered; the last pending call's answer ends processing", async () => {
    const w = await world(ds, MERGE);
    const s = await started(w);
    expect(
      partnerCallsOf(s.first)
        .map((r) => r.offers.map((o) => o.offerId))
        .sort(),
    ).toEqual([ids(w, 'pa', 'pb', 'pNorth'), ids(w, 'pc')].sort());
    const pa = partnerResult(w, 'pa');
    const pb = partnerResult(w, 'pb', { expiresInSeconds: null });
    const before = Date.now();

    await orch.merge.run(partnerAnswer(w, s.searchId, 'p1', [pa, pb], { latencyMs: 812.4 }));

    // pa (priority 10, payout 30) before own (10, 20), then pb (priority 5).
    expect(await listed(s.searchId)).toEqual(ids(w, 'pa', 'own', 'pb'));
    const row = (await searchRow(ds, s.searchId))!;
    expect(row.state_version).toBe(2);
    expect(row.processing_done_at).toBeNull();
    const results = await resultRows(ds, s.searchId);
    const resultOf = (k: keyof typeof MERGE) => [...results.values()].find((r) => r.offer_id === w.ids.offers[k])!;
    expect(row.offer_decisions[w.ids.offers.pa]).toEqual({ shown: true, result_id: resultOf('pa').id });
    expect(row.offer_decisions[w.ids.offers.pb]).toEqual({ shown: true, result_id: resultOf('pb').id });

    // The partner's programs, questions and consent text; the catalog's school; the campaign's payout; the partner's shorter expiry.
    const paRow = resultOf('pa');
    expect(paRow.partner_data).toEqual({
      partnerId: w.ids.partners.p1,
      partnerResultId: pa.partnerResultId,
      externalId: w.externalId('pa'),
    });
    expect(paRow.entry).toEqual({
      svc_result_id: paRow.id,
      campaign_id: w.ids.campaign,
      offer: { id: w.ids.offers.pa, name: w.offerName('pa'), offer_type: 'shared', is_exclusive: false, tcpa_text: pa.tcpaText },
      school: { name: w.schoolName('pa'), logo_url: null },
      programs: [{ value: 'prog-pa', label: 'Program pa', payout: 30 }],
      payout: 30,
      form_fields: pa.formFields,
      expires_at: paRow.expires_at.toISOString(),
    });
    expect(paRow.expires_at.getTime()).toBeGreaterThanOrEqual(before + 600_000);
    expect(paRow.expires_at.getTime()).toBeLessThan(before + 660_000);
    expect(resultOf('pb').expires_at.getTime()).toBeGreaterThanOrEqual(before + 900_000); // no partner expiry: the offer's 900 s

    const calls = await callRows(ds, s.searchId);
    expect(calls.get(w.ids.partners.p1)).toMatchObject({
      status: 'answered',
      latency_ms: 812,
      result_count: 2,
      detail: null,
      answered_at: expect.any(Date),
    });
    expect(calls.get(w.ids.partners.p2)).toMatchObject({ status: 'pending', answered_at: null });

    let cached = (await redisSearch(redis, s.searchId))!;
    expect(cached.v).toBe(2);
    expect(cached.meta).toMatchObject({ version: 2, processingDone: false, order: row.result_order });
    for (const r of results.values()) expect(cached.entries.get(r.id)).toEqual(r.entry);

    // p2, the last pending call: pc (10, 25) goes between pa and own; the search is done.
    await orch.merge.run(partnerAnswer(w, s.searchId, 'p2', [partnerResult(w, 'pc')]));

    expect(await listed(s.searchId)).toEqual(ids(w, 'pa', 'pc', 'own', 'pb'));
    const done = (await searchRow(ds, s.searchId))!;
    expect(done.state_version).toBe(3);
    expect(done.processing_done_at).not.toBeNull();
    expect((await callRows(ds, s.searchId)).get(w.ids.partners.p2)).toMatchObject({ status: 'answered', result_count: 1 });
    cached = (await redisSearch(redis, s.searchId))!;
    expect(cached.v).toBe(3);
    expect(cached.meta).toMatchObject({ version: 3, processingDone: true, order: done.result_order });
    expect([...cached.entries.keys()].sort()).toEqual([...done.result_order].sort());
  });

  it('every offer the partner was asked about gets its outcome: shown, no result, or why the call failed', async () => {
    const w = await world(ds, MERGE);
    const s = await started(w);
    expect((await searchRow(ds, s.searchId))!.offer_decisions[w.ids.offers.pb]).toEqual({
      shown: false,
      reason: 'partner_asked',
      partner: expect.any(String),
    });

    await orch.merge.run(partnerAnswer(w, s.searchId, 'p1', [partnerResult(w, 'pa')]));
    await orch.merge.run(partnerAnswer(w, s.searchId, 'p2', [], { outcome: 'timeout', detail: 'no answer within 4000 ms' }));

    const d = (await searchRow(ds, s.searchId))!.offer_decisions;
    expect(d[w.ids.offers.pa]).toMatchObject({ shown: true });
    expect(d[w.ids.offers.pb]).toEqual({ shown: false, reason: 'partner_no_result' });
    expect(d[w.ids.offers.pNorth]).toEqual({ shown: false, reason: 'partner_no_result' });
    expect(d[w.ids.offers.pc]).toEqual({ shown: false, reason: 'partner_timeout', detail: 'no answer within 4000 ms' });
  });

  it('a partner that repeats an offer in one answer has it shown once, at its first result', async () => {
    const w = await world(ds, MERGE);
    const s = await started(w);
    const first = partnerResult(w, 'pa');
    const again = { ...partnerResult(w, 'pa'), partnerResultId: `${first.partnerResultId}-again` };

    await orch.merge.run(partnerAnswer(w, s.searchId, 'p1', [first, again]));

    const results = [...(await resultRows(ds, s.searchId)).values()].filter((r) => r.offer_id === w.ids.offers.pa);
    expect(results.map((r) => r.partner_data?.partnerResultId)).toEqual([first.partnerResultId]);
    expect((await searchRow(ds, s.searchId))!.offer_decisions[w.ids.offers.pa]).toEqual({ shown: true, result_id: results[0].id });
  });

  it("a result for an offer the call did not ask about is ignored (another partner's offer, an offer left out at the start)", async () => {
    const w = await world(ds, MERGE);
    const s = await started(w);

    await orch.merge.run(partnerAnswer(w, s.searchId, 'p1', [partnerResult(w, 'pc'), partnerResult(w, 'pa'), partnerResult(w, 'pOut')]));

    expect(await listed(s.searchId)).toEqual(ids(w, 'pa', 'own'));
    const row = (await searchRow(ds, s.searchId))!;
    expect(row.offer_decisions[w.ids.offers.pc]).toEqual({ shown: false, reason: 'partner_asked', partner: w.partnerName('p2') });
    expect(row.offer_decisions[w.ids.offers.pOut]).toEqual({ shown: false, reason: 'not_eligible', detail: 'states' });
    expect(row.offer_decisions[w.ids.offers.pa]).toMatchObject({ shown: true });
    expect((await resultRows(ds, s.searchId)).size).toBe(2);
    expect((await callRows(ds, s.searchId)).get(w.ids.partners.p1)).toMatchObject({ status: 'answered', result_count: 3 });
    expect((await callRows(ds, s.searchId)).get(w.ids.partners.p2)).toMatchObject({ status: 'pending' });
  });

  it('a result whose offer is now paused, ineligible, cap-full or sold to the person is left out with its reason', async () => {
    const w = await world(ds, {
      own: { school: 'north', priority: 10, payout: 20 },
      qPaused: { school: 's1', partner: 'p1' },
      qIneligible: { school: 's2', partner: 'p1' },
      qCapFull: { school: 's3', partner: 'p1', caps: [{ period: 'day', limit: 1 }] },
      qSold: { school: 's4', partner: 'p1' },
      qOk: { school: 's5', partner: 'p1', payout: 5 },
    });
    const s = await started(w);
    expect(partnerCallsOf(s.first)[0].offers).toHaveLength(5);
    // Meanwhile: the operator pauses one offer and narrows another; a sale fills a cap; the person is sold another offer elsewhere.
    await w.change({ qPaused: { status: 'paused' }, qIneligible: { eligibility: { states: ['CA'] } } });
    await useCap(ds, capSlot(w.ids.offers.qCapFull, null, 'day', new Date()), 1);
    await soldToPerson(ds, w, s.lead, 'qSold', '1 minute');

    await orch.merge.run(
      partnerAnswer(
        w,
        s.searchId,
        'p1',
        (['qPaused', 'qIneligible', 'qCapFull', 'qSold', 'qOk'] as const).map((k) => partnerResult(w, k)),
      ),
    );

    expect(await listed(s.searchId)).toEqual(ids(w, 'own', 'qOk'));
    const d = (await searchRow(ds, s.searchId))!.offer_decisions;
    expect(d[w.ids.offers.qPaused]).toEqual({ shown: false, reason: 'offer_inactive' });
    expect(d[w.ids.offers.qIneligible]).toEqual({ shown: false, reason: 'not_eligible', detail: 'states' });
    expect(d[w.ids.offers.qCapFull]).toEqual({ shown: false, reason: 'cap_reached' });
    expect(d[w.ids.offers.qSold]).toEqual({ shown: false, reason: 'duplicate' });
    expect(d[w.ids.offers.qOk]).toMatchObject({ shown: true });
    const cached = (await redisSearch(redis, s.searchId))!;
    expect(cached.meta).toMatchObject({ version: 2, processingDone: true });
    expect(cached.entries.size).toBe(2);
  });

  it('in a live search a partner result of a school already shown is not added (school_already_shown), however well it ranks', async () => {
    const w = await world(ds, MERGE);
    const s = await started(w);

    await orch.merge.run(partnerAnswer(w, s.searchId, 'p1', [partnerResult(w, 'pNorth')]));

    expect(await listed(s.searchId)).toEqual(ids(w, 'own'));
    const row = (await searchRow(ds, s.searchId))!;
    expect(row.offer_decisions[w.ids.offers.pNorth]).toEqual({ shown: false, reason: 'school_already_shown' });
    expect(row.state_version).toBe(2);
    expect((await redisSearch(redis, s.searchId))!.meta).toMatchObject({ version: 2, order: row.result_order });
  });

  it('in a test search a partner result of a school already shown is added in rank order', async () => {
    const w = await world(ds, MERGE);
    const s = await started(w, { isTest: true });

    await orch.merge.run(partnerAnswer(w, s.searchId, 'p1', [partnerResult(w, 'pNorth'), partnerResult(w, 'pb')]));

    // pNorth (priority 10, payout 50) before own (10, 20), then pb (priority 5).
    expect(await listed(s.searchId)).toEqual(ids(w, 'pNorth', 'own', 'pb'));
    const row = (await searchRow(ds, s.searchId))!;
    expect(row.offer_decisions[w.ids.offers.pNorth]).toMatchObject({ shown: true });
    expect((await redisSearch(redis, s.searchId))!.meta).toMatchObject({ version: 2, isTest: true, order: row.result_order });
  });

  it('an answer after the search closed is recorded on its call but adds nothing', async () => {
    const w = await world(ds, MERGE);
    // Requested 60 s ago (the gateway still waiting, so it was stored): closed 15 s ago.
    const s = await started(w, { requestedAt: new Date(Date.now() - 60_000) });

    await orch.merge.run(partnerAnswer(w, s.searchId, 'p1', [partnerResult(w, 'pa'), partnerResult(w, 'pb')], { latencyMs: 4999.6 }));

    expect(await listed(s.searchId)).toEqual(ids(w, 'own'));
    expect((await resultRows(ds, s.searchId)).size).toBe(1);
    const row = (await searchRow(ds, s.searchId))!;
    expect(row.state_version).toBe(2);
    expect(row.offer_decisions[w.ids.offers.pa]?.shown).toBe(false);
    expect((await callRows(ds, s.searchId)).get(w.ids.partners.p1)).toMatchObject({
      status: 'answered',
      result_count: 2,
      latency_ms: 5000,
    });
    const cached = (await redisSearch(redis, s.searchId))!;
    expect(cached.meta).toMatchObject({ version: 2, order: row.result_order });
    expect(cached.entries.size).toBe(1);
  });

  it('a failed partner call (timeout, error) is recorded with its detail and adds nothing; when no call is pending the search is done', async () => {
    const w = await world(ds, MERGE);
    const s = await started(w);

    await orch.merge.run(
      partnerAnswer(w, s.searchId, 'p1', [], { outcome: 'timeout', latencyMs: 5000, detail: 'no answer within 5000 ms' }),
    );
    await orch.merge.run(partnerAnswer(w, s.searchId, 'p2', [], { outcome: 'error', latencyMs: 31, detail: 'HTTP 502' }));

    const calls = await callRows(ds, s.searchId);
    expect(calls.get(w.ids.partners.p1)).toMatchObject({ status: 'timeout', result_count: 0, detail: 'no answer within 5000 ms' });
    expect(calls.get(w.ids.partners.p2)).toMatchObject({ status: 'error', result_count: 0, detail: 'HTTP 502' });
    const row = (await searchRow(ds, s.searchId))!;
    expect(row).toMatchObject({ state_version: 3, result_order: [s.resultIdOf('own')] });
    expect(row.processing_done_at).not.toBeNull();
    expect((await redisSearch(redis, s.searchId))!.meta).toMatchObject({ version: 3, processingDone: true });
  });

  it('a redelivered answer writes nothing the second time and rebuilds the Redis state from PostgreSQL', async () => {
    const w = await world(ds, MERGE);
    const s = await started(w);
    const answer = partnerAnswer(w, s.searchId, 'p1', [partnerResult(w, 'pa'), partnerResult(w, 'pb')]);
    await orch.merge.run(answer);
    const row = await searchRow(ds, s.searchId);
    const results = await resultRows(ds, s.searchId);
    const calls = await callRows(ds, s.searchId);
    const cached = (await redisSearch(redis, s.searchId))!;
    await redis.del(searchStateKey(s.searchId));

    await orch.merge.run(answer);

    expect(await searchRow(ds, s.searchId)).toEqual(row);
    expect(await resultRows(ds, s.searchId)).toEqual(results);
    expect(await callRows(ds, s.searchId)).toEqual(calls);
    const rebuilt = (await redisSearch(redis, s.searchId))!;
    expect(rebuilt.v).toBe(2);
    expect(rebuilt.meta).toEqual(cached.meta);
    expect(rebuilt.entries).toEqual(cached.entries);
  });

  it('two partners answering the same search at the same time are both merged, each exactly once, in the ranked union (race)', async () => {
    const w = await world(ds, MERGE);
    const searches = await Promise.all(Array.from({ length: 4 }, () => started(w)));

    await Promise.all(
      searches.flatMap((s) => [
        orch.merge.run(partnerAnswer(w, s.searchId, 'p1', [partnerResult(w, 'pa'), partnerResult(w, 'pb')])),
        orch.merge.run(partnerAnswer(w, s.searchId, 'p2', [partnerResult(w, 'pc')])),
      ]),
    );

    for (const s of searches) {
      expect(await listed(s.searchId)).toEqual(ids(w, 'pa', 'pc', 'own', 'pb'));
      const row = (await searchRow(ds, s.searchId))!;
      expect(row.state_version).toBe(3);
      expect(row.processing_done_at).not.toBeNull();
      const offersOfRows = [...(await resultRows(ds, s.searchId)).values()].map((r) => r.offer_id).sort();
      expect(offersOfRows).toEqual(ids(w, 'own', 'pa', 'pb', 'pc').sort());
      const calls = await callRows(ds, s.searchId);
      expect([...calls.values()].map((c) => c.status)).toEqual(['answered', 'answered']);
      const cached = (await redisSearch(redis, s.searchId))!;
      expect(cached.meta).toMatchObject({ version: 3, processingDone: true, order: row.result_order });
      expect([...cached.entries.keys()].sort()).toEqual([...row.result_order].sort());
    }
  });

  it('an answer merged while another of the same search is between its read and its write waits for it and merges on the list it left (row lock, no second read)', async () => {
    const w = await world(ds, MERGE);
    const s = await started(w);
    const repo = new HoldFirstMerge(ds);
    const merge = new MergePartnerAnswer(orch.catalog, repo, orch.ledger, orch.state, orch.config);

    await Promise.all([
      merge.run(partnerAnswer(w, s.searchId, 'p1', [partnerResult(w, 'pa'), partnerResult(w, 'pb')])),
      merge.run(partnerAnswer(w, s.searchId, 'p2', [partnerResult(w, 'pc')])),
    ]);

    expect(repo.versionsRead).toEqual([1, 2]); // the second read what the first wrote: no merge read twice
    expect(await listed(s.searchId)).toEqual(ids(w, 'pa', 'pc', 'own', 'pb'));
    const row = (await searchRow(ds, s.searchId))!;
    expect(row.state_version).toBe(3);
    expect(row.processing_done_at).not.toBeNull();
    for (const k of ['pa', 'pb', 'pc'] as const) expect(row.offer_decisions[w.ids.offers[k]]).toMatchObject({ shown: true });
    expect((await resultRows(ds, s.searchId)).size).toBe(4);
    const cached = (await redisSearch(redis, s.searchId))!;
    expect(cached.meta).toMatchObject({ version: 3, processingDone: true, order: row.result_order });
    expect(cached.entries.size).toBe(4);
  });

  it("after the lead's true_exclusive sale was accepted, a partner's results are left out (sale_closed) and the list stays", async () => {
    const w = await world(ds, {
      exclusive: { school: 'north', offerType: 'true_exclusive', priority: 10, payout: 60 },
      pa: { school: 'west', partner: 'p1', priority: 10, payout: 30 },
      pb: { school: 'south', partner: 'p1', priority: 5 },
    });
    const s = await started(w);
    await acceptedSaleOnSearch(ds, w, s.searchId, s.resultIdOf('exclusive'), 'exclusive', s.lead);

    await orch.merge.run(partnerAnswer(w, s.searchId, 'p1', [partnerResult(w, 'pa'), partnerResult(w, 'pb')]));

    expect(await listed(s.searchId)).toEqual(ids(w, 'exclusive'));
    const row = (await searchRow(ds, s.searchId))!;
    expect(row.offer_decisions[w.ids.offers.pa]).toEqual({ shown: false, reason: 'sale_closed', detail: 'sold_true_exclusive' });
    expect(row.offer_decisions[w.ids.offers.pb]).toEqual({ shown: false, reason: 'sale_closed', detail: 'sold_true_exclusive' });
    expect(row.state_version).toBe(3); // 1 stored, 2 the acceptance, 3 this answer
    expect((await callRows(ds, s.searchId)).get(w.ids.partners.p1)).toMatchObject({ status: 'answered', result_count: 2 });
    const cached = (await redisSearch(redis, s.searchId))!;
    expect(cached.meta).toMatchObject({
      version: 3,
      acceptedCount: 1,
      trueExclusiveAccepted: true,
      processingDone: true,
      order: row.result_order,
    });
  });

  it('an answer for an unknown search, or from a partner the search did not ask, is dropped and writes nothing', async () => {
    const w = await world(ds, MERGE);
    const s = await started(w);
    const unknownSearch = randomUUID();

    await orch.merge.run(partnerAnswer(w, unknownSearch, 'p1', [partnerResult(w, 'pa')]));
    await orch.merge.run(partnerAnswers(w, s.searchId, [{ ...oneAnswer(w, 'p1', [partnerResult(w, 'pa')]), partnerId: randomUUID() }]));

    expect(await searchRow(ds, unknownSearch)).toBeUndefined();
    expect(await redis.exists(searchStateKey(unknownSearch))).toBe(0);
    const row = (await searchRow(ds, s.searchId))!;
    expect(row.state_version).toBe(1);
    expect(await listed(s.searchId)).toEqual(ids(w, 'own'));
    expect([...(await callRows(ds, s.searchId)).values()].map((c) => c.status)).toEqual(['pending', 'pending']);
  });
  it('the answers of two partners in one message are merged in one transaction, one after the other: the ranked union, each call answered, processing done', async () => {
    const w = await world(ds, MERGE);
    const s = await started(w);
    const repo = new CountMerges(ds);
    const merge = new MergePartnerAnswer(orch.catalog, repo, orch.ledger, orch.state, orch.config);

    await merge.run(
      partnerAnswers(w, s.searchId, [
        oneAnswer(w, 'p1', [partnerResult(w, 'pa'), partnerResult(w, 'pb'), partnerResult(w, 'pNorth')], { latencyMs: 301.2 }),
        oneAnswer(w, 'p2', [partnerResult(w, 'pc')], { latencyMs: 305.8 }),
      ]),
    );

    expect(repo.versionsRead).toEqual([1]); // one read and one write for both answers
    expect(await listed(s.searchId)).toEqual(ids(w, 'pa', 'pc', 'own', 'pb'));
    const row = (await searchRow(ds, s.searchId))!;
    expect(row.state_version).toBe(2);
    expect(row.processing_done_at).not.toBeNull();
    expect(row.offer_decisions[w.ids.offers.pNorth]).toEqual({ shown: false, reason: 'school_already_shown' });
    expect(row.offer_decisions[w.ids.offers.pc]).toMatchObject({ shown: true });
    const calls = await callRows(ds, s.searchId);
    expect(calls.get(w.ids.partners.p1)).toMatchObject({ status: 'answered', latency_ms: 301, result_count: 3 });
    expect(calls.get(w.ids.partners.p2)).toMatchObject({ status: 'answered', latency_ms: 306, result_count: 1 });
    const cached = (await redisSearch(redis, s.searchId))!;
    expect(cached.meta).toMatchObject({ version: 2, processingDone: true, order: row.result_order });
    expect(cached.entries.size).toBe(4);
  });

  it('a later partner in one message sees the schools an earlier one added: one school per live search across the answers', async () => {
    const w = await world(ds, {
      own: { school: 'north', priority: 1, payout: 20 },
      pWest1: { school: 'west', partner: 'p1', priority: 5, payout: 30 },
      pWest2: { school: 'west', partner: 'p2', priority: 10, payout: 40 },
    });
    const s = await started(w);

    await orch.merge.run(
      partnerAnswers(w, s.searchId, [oneAnswer(w, 'p1', [partnerResult(w, 'pWest1')]), oneAnswer(w, 'p2', [partnerResult(w, 'pWest2')])]),
    );

    expect(await listed(s.searchId)).toEqual(ids(w, 'pWest1', 'own'));
    const row = (await searchRow(ds, s.searchId))!;
    expect(row.offer_decisions[w.ids.offers.pWest2]).toEqual({ shown: false, reason: 'school_already_shown' });
  });

  it('in a message with an answer already taken (a redelivery) and a new one, only the new one is merged; a partner named twice counts once', async () => {
    const w = await world(ds, MERGE);
    const s = await started(w);
    await orch.merge.run(partnerAnswer(w, s.searchId, 'p1', [partnerResult(w, 'pa')]));

    await orch.merge.run(
      partnerAnswers(w, s.searchId, [
        oneAnswer(w, 'p1', [partnerResult(w, 'pb')]),
        oneAnswer(w, 'p2', [partnerResult(w, 'pc')]),
        oneAnswer(w, 'p2', [], { outcome: 'error', detail: 'HTTP 500' }),
      ]),
    );

    expect(await listed(s.searchId)).toEqual(ids(w, 'pa', 'pc', 'own'));
    const row = (await searchRow(ds, s.searchId))!;
    expect(row.state_version).toBe(3);
    const calls = await callRows(ds, s.searchId);
    expect(calls.get(w.ids.partners.p1)).toMatchObject({ status: 'answered', result_count: 1 });
    expect(calls.get(w.ids.partners.p2)).toMatchObject({ status: 'answered', result_count: 1 });
  });
});
