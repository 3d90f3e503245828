import type Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { SubmitAnswerV1, SubmitDecision } from '@lr/contracts';
import { LeadRepository, SaleLedger, SearchRepository, UnresolvedDeliveries } from '@lr/persistence';
import { searchStateKey, SearchStatePublisher } from '@lr/search-state';
import {
  fakeSchool,
  keyStoreSealer,
  mediumDataSource,
  mediumRedis,
  reservedLead,
  submitWorld,
  SubmitWorld,
} from '../../../../test/support/medium-world';
import { deliveryAttemptsOf, salesOfLead, storedLeadOf } from '../../../../test/support/stored-rows';
import { BuyerCalls } from './buyer-calls';
import { DeliverLead } from './deliver-lead.usecase';

/**
 * delivery's DeliverLead against the real PostgreSQL and Redis (medium tier,
 * no broker): a lead reserved by checks' DecideSubmit (its real producer, via
 * test/support), delivered to a school system on 127.0.0.1 that answers as
 * the sandbox school protocol does. Only own-offer (school) buyers: BuyerCalls
 * gets no broker connection.
 */

/** Small, so the unanswered and the twin cases stay fast (the catalog's minimum is 100). */
const TIMEOUT_MS = 300;

let ds: DataSource;
let redis: Redis;
let school: Awaited<ReturnType<typeof fakeSchool>>;
let delivery: DeliverLead;

beforeAll(async () => {
  ds = await mediumDataSource(16);
  redis = mediumRedis();
  school = await fakeSchool();
  delivery = new DeliverLead(
    new SaleLedger(ds),
    new LeadRepository(ds),
    new BuyerCalls(undefined as never, keyStoreSealer()),
    new SearchStatePublisher(redis, new SearchRepository(ds)),
  );
});

afterAll(async () => {
  await school?.close();
  redis?.disconnect();
  await ds?.destroy();
});

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A world of one own offer whose school answers at `path` (see fakeSchool), with a cap to watch. */
function schoolWorld(path: string, timeoutMs = TIMEOUT_MS): Promise<SubmitWorld> {
  return submitWorld(ds, [
    { caps: [{ period: 'total', limit: 10 }], delivery: { adapter: 'sandbox', url: school.url(path), timeout_ms: timeoutMs } },
  ]);
}

function decisionOf(answer: SubmitAnswerV1): SubmitDecision {
  if (answer.kind !== 'decision') throw new Error(`expected a decision, got ${JSON.stringify(answer)}`);
  return answer.decision;
}

async function leadRow(leadId: string) {
  return storedLeadOf(ds, leadId);
}

async function saleOf(leadId: string) {
  return (await salesOfLead(ds, leadId))[0];
}

async function attemptOf(leadId: string) {
  return deliveryAttemptsOf(ds, leadId);
}

async function capUsed(offerId: string): Promise<number> {
  const rows: Array<{ used: number }> = await ds.query(`SELECT used FROM cap_usage WHERE scope = $1 AND period = 'total'`, [
    `offer:${offerId}`,
  ]);
  return rows[0]?.used ?? 0;
}

async function dedupeKeyCount(leadId: string): Promise<number> {
  const rows: Array<{ n: number }> = await ds.query('SELECT count(*)::int AS n FROM dedupe_keys WHERE lead_id = $1', [leadId]);
  return rows[0].n;
}

async function searchCounters(
  searchId: string,
): Promise<{ accepted_count: number; state_version: number; true_exclusive_accepted: boolean }> {
  const rows: Array<{ accepted_count: number; state_version: string; true_exclusive_accepted: boolean }> = await ds.query(
    'SELECT accepted_count, state_version, true_exclusive_accepted FROM searches WHERE id = $1',
    [searchId],
  );
  return { ...rows[0], state_version: Number(rows[0].state_version) };
}

/** The search's meta as polls read it from Redis (undefined when none was written). */
async function redisMeta(
  searchId: string,
): Promise<{ version: number; acceptedCount: number; trueExclusiveAccepted: boolean; searchId: string } | undefined> {
  const meta = await redis.hget(searchStateKey(searchId), 'meta');
  return meta === null ? undefined : JSON.parse(meta);
}

/** After a refusal by the buyer: the sale released, its cap slot given back, its dedupe keys dropped, the search unchanged. */
async function expectReleased(leadId: string, offerId: string, searchId: string): Promise<void> {
  expect(await saleOf(leadId)).toMatchObject({ status: 'released' });
  expect(await capUsed(offerId)).toBe(0);
  expect(await dedupeKeyCount(leadId)).toBe(0);
  expect(await searchCounters(searchId)).toEqual({ accepted_count: 0, state_version: 1, true_exclusive_accepted: false });
  expect(await redisMeta(searchId)).toBeUndefined();
}

describe('DeliverLead (medium: real PostgreSQL and Redis, a school on 127.0.0.1)', () => {
  it('the school accepting: lead accepted with the booked payout, sale accepted, search counters and Redis meta rewritten, the school called once with Idempotency-Key = lead id', async () => {
    const world = await schoolWorld('/accept');
    const offerId = world.offerIds[0];
    const { search, deliver } = await reservedLead(world);
    expect(await capUsed(offerId)).toBe(1);
    expect(await dedupeKeyCount(deliver.leadId)).toBe(3);

    const d = decisionOf(await delivery.run(deliver));

    expect(d).toMatchObject({
      leadId: deliver.leadId,
      status: 'accepted',
      code: 'ACCEPTED',
      reason: 'Lead accepted',
      payout: 20,
      decidedBy: 'buyer',
      offerId,
      searchId: search.searchId,
      resultId: deliver.resultId,
      isTest: false,
    });
    expect(await leadRow(deliver.leadId)).toMatchObject({ status: 'accepted', code: 'ACCEPTED', payout: '20.00', decided_by: 'buyer' });
    expect(await saleOf(deliver.leadId)).toMatchObject({ status: 'accepted', payout: '20.00' });
    expect(await capUsed(offerId)).toBe(1);
    expect(await dedupeKeyCount(deliver.leadId)).toBe(3);
    expect(await searchCounters(search.searchId)).toEqual({ accepted_count: 1, state_version: 2, true_exclusive_accepted: false });
    expect(await redisMeta(search.searchId)).toMatchObject({
      searchId: search.searchId,
      version: 2,
      acceptedCount: 1,
      trueExclusiveAccepted: false,
    });
    const [attempt] = await attemptOf(deliver.leadId);
    expect(attempt).toMatchObject({ attempt: 1, outcome: 'accepted', http_status: 200 });
    expect(attempt.finished_at).not.toBeNull();

    expect(school.callsFor(deliver.leadId)).toBe(1);
    const sent = school.received.find((r) => r.idempotencyKey === deliver.leadId)!;
    expect(sent.path).toBe('/accept');
    // The message carried the lead sealed; the school receives it whole, opened at the call.
    expect(deliver.lead.personal?.email).toBeUndefined();
    expect(sent.body).toMatchObject({ lead_id: deliver.leadId, lead: { personal: { email: search.lead.personal!.email } } });
  });

  it('the school rejecting: BUYER_REJECTED `Rejected - Client`, the sale released, its cap slot given back, its dedupe keys dropped', async () => {
    const world = await schoolWorld('/reject');
    const { search, deliver } = await reservedLead(world);

    const d = decisionOf(await delivery.run(deliver));

    expect(d).toMatchObject({
      leadId: deliver.leadId,
      status: 'rejected',
      code: 'BUYER_REJECTED',
      reason: 'Rejected - Client',
      payout: 0,
      decidedBy: 'buyer',
    });
    expect(await leadRow(deliver.leadId)).toMatchObject({
      status: 'rejected',
      code: 'BUYER_REJECTED',
      reason: 'Rejected - Client',
      payout: '0.00',
    });
    await expectReleased(deliver.leadId, world.offerIds[0], search.searchId);
    expect(school.callsFor(deliver.leadId)).toBe(1);
  });

  it('a lead whose data key a deletion destroyed before its buyer was called: not sent, recorded as erased, the sale released', async () => {
    const world = await schoolWorld('/accept');
    const { search, deliver } = await reservedLead(world);
    expect(await keyStoreSealer().destroy([deliver.contact!.key])).toBe(1);

    const d = decisionOf(await delivery.run(deliver));

    expect(d).toMatchObject({ status: 'rejected', code: 'BUYER_REJECTED', reason: 'Error - Client' });
    expect((await attemptOf(deliver.leadId))[0]).toMatchObject({ outcome: 'error', detail: 'contact data erased (a deletion): not sent' });
    expect(school.callsFor(deliver.leadId)).toBe(0);
    await expectReleased(deliver.leadId, world.offerIds[0], search.searchId);
  });

  it('the key store away: the message fails before the attempt is claimed, and its redelivery sends the lead once', async () => {
    const world = await schoolWorld('/accept');
    const { deliver } = await reservedLead(world);
    const keyStoreAway = new DeliverLead(
      new SaleLedger(ds),
      new LeadRepository(ds),
      new BuyerCalls(undefined as never, keyStoreSealer('postgres://postgres@127.0.0.1:1/nowhere_medium', { cached: false })),
      new SearchStatePublisher(redis, new SearchRepository(ds)),
    );

    await expect(keyStoreAway.run(deliver)).rejects.toThrow();
    expect(await attemptOf(deliver.leadId)).toEqual([]);
    expect(school.callsFor(deliver.leadId)).toBe(0);

    expect(decisionOf(await delivery.run(deliver))).toMatchObject({ status: 'accepted', code: 'ACCEPTED' });
    expect(school.callsFor(deliver.leadId)).toBe(1);
  });

  it('the school answering duplicate: DUPLICATE `Duplicate - Client`, the sale released', async () => {
    const world = await schoolWorld('/duplicate');
    const { search, deliver } = await reservedLead(world);

    const d = decisionOf(await delivery.run(deliver));

    expect(d).toMatchObject({ status: 'rejected', code: 'DUPLICATE', reason: 'Duplicate - Client', payout: 0, decidedBy: 'buyer' });
    await expectReleased(deliver.leadId, world.offerIds[0], search.searchId);
  });

  it('the school failing with HTTP 500: BUYER_REJECTED `Error - Client`, the sale released', async () => {
    const world = await schoolWorld('/fail');
    const { search, deliver } = await reservedLead(world);

    const d = decisionOf(await delivery.run(deliver));

    expect(d).toMatchObject({ status: 'rejected', code: 'BUYER_REJECTED', reason: 'Error - Client', decidedBy: 'buyer' });
    expect((await attemptOf(deliver.leadId))[0]).toMatchObject({ outcome: 'error', http_status: 500 });
    await expectReleased(deliver.leadId, world.offerIds[0], search.searchId);
    expect(school.callsFor(deliver.leadId)).toBe(1);
  });

  it("a school slower than the offer's timeout_ms: BUYER_REJECTED `No response - Client`, the sale released", async () => {
    const world = await schoolWorld('/accept?delay=2000');
    const { search, deliver } = await reservedLead(world);

    const started = Date.now();
    const d = decisionOf(await delivery.run(deliver));

    // Decided at the offer's deadline, long before the school would have answered.
    expect(Date.now() - started).toBeLessThan(1500);
    expect(d).toMatchObject({ status: 'rejected', code: 'BUYER_REJECTED', reason: 'No response - Client', decidedBy: 'buyer' });
    expect((await attemptOf(deliver.leadId))[0]).toMatchObject({ outcome: 'timeout', http_status: null });
    await expectReleased(deliver.leadId, world.offerIds[0], search.searchId);
    expect(school.callsFor(deliver.leadId)).toBe(1);
  });

  it('a redelivered request of a decided lead answers the decision without calling the school again', async () => {
    const world = await schoolWorld('/accept');
    const { search, deliver } = await reservedLead(world);
    const first = await delivery.run(deliver);
    await redis.del(searchStateKey(search.searchId));

    const again = await delivery.run(deliver);

    expect(again).toEqual(first);
    expect(school.callsFor(deliver.leadId)).toBe(1);
    expect(await attemptOf(deliver.leadId)).toHaveLength(1);
    expect(await searchCounters(search.searchId)).toMatchObject({ accepted_count: 1, state_version: 2 });
    // The acceptance's state is written to Redis again from PostgreSQL.
    expect(await redisMeta(search.searchId)).toMatchObject({ version: 2, acceptedCount: 1 });
  });

  it('a copy of the request handled while the first attempt still runs: the school is called once and both answer the same decision', async () => {
    const world = await schoolWorld('/accept?delay=200');
    const { search, deliver } = await reservedLead(world);

    const first = delivery.run(deliver);
    // The copy comes in once the first copy's attempt is claimed (the school has the lead, no answer yet).
    await until(() => school.callsFor(deliver.leadId) === 1);
    // It finds the attempt claimed and waits out its deadline (timeout_ms + 2 s) before reading the decision.
    const [a, b] = await Promise.all([first, delivery.run({ ...deliver })]);

    expect(school.callsFor(deliver.leadId)).toBe(1);
    expect(b).toEqual(a);
    expect(decisionOf(a)).toMatchObject({ leadId: deliver.leadId, code: 'ACCEPTED', payout: 20 });
    expect(await attemptOf(deliver.leadId)).toHaveLength(1);
    expect(await searchCounters(search.searchId)).toMatchObject({ accepted_count: 1, state_version: 2 });
  });

  /**
   * Two copies claiming at the same instant: the second's INSERT waits for the first's commit and inserts
   * nothing, and reads the claim committed after its snapshot in a statement of its own (claimAttempt).
   */
  it('two copies of the same request at the same instant: the school is called once and both answer the same decision', async () => {
    const world = await schoolWorld('/accept?delay=100');
    const leads = await Promise.all(Array.from({ length: 10 }, () => reservedLead(world)));

    // Every copy is awaited before asserting, so no delivery outlives the test.
    const pairs = await Promise.all(leads.map(({ deliver }) => Promise.allSettled([delivery.run(deliver), delivery.run({ ...deliver })])));

    for (const [i, { deliver }] of leads.entries()) {
      const [a, b] = pairs[i];
      expect(school.callsFor(deliver.leadId)).toBe(1);
      expect([a.status, b.status]).toEqual(['fulfilled', 'fulfilled']);
      expect(b).toEqual(a);
      expect(decisionOf((a as PromiseFulfilledResult<SubmitAnswerV1>).value)).toMatchObject({ leadId: deliver.leadId, code: 'ACCEPTED' });
    }
  });

  describe('a worker that died during the buyer call (its attempt claimed, never finished)', () => {
    /** The dead worker's claim: committed before its call, as the real one is. */
    const claimedByADeadWorker = (leadId: string) => new SaleLedger(ds).claimAttempt(leadId);

    it('a school that honours idempotency keys (sandbox protocol): after the deadline the lead is sent again with the same key, and its answer decides', async () => {
      const world = await schoolWorld('/accept');
      const { search, deliver } = await reservedLead(world);
      await claimedByADeadWorker(deliver.leadId);

      const answer = await delivery.run(deliver);

      expect(decisionOf(answer)).toMatchObject({ leadId: deliver.leadId, code: 'ACCEPTED', payout: 20 });
      expect(school.callsFor(deliver.leadId)).toBe(1);
      expect(school.received.filter((r) => r.idempotencyKey === deliver.leadId)).toHaveLength(1);
      const attempts = await attemptOf(deliver.leadId);
      expect(attempts).toHaveLength(1);
      expect(attempts[0]).toMatchObject({ outcome: 'accepted' });
      expect(attempts[0].detail).toMatch(/^sent again after an interrupted call/);
      expect(await searchCounters(search.searchId)).toMatchObject({ accepted_count: 1 });
      expect(
        await new UnresolvedDeliveries(ds).list(new Date(Date.now() - 60_000), new Date(Date.now() + 60_000), 1000),
      ).not.toContainEqual(expect.objectContaining({ leadId: deliver.leadId }));
    });

    it('two redeliveries at once: one sends it again, the other answers the same decision', async () => {
      const world = await schoolWorld('/accept?delay=100');
      const { deliver } = await reservedLead(world);
      await claimedByADeadWorker(deliver.leadId);

      const [a, b] = await Promise.all([delivery.run(deliver), delivery.run({ ...deliver })]);

      expect(school.callsFor(deliver.leadId)).toBe(1);
      expect(b).toEqual(a);
      expect(decisionOf(a)).toMatchObject({ code: 'ACCEPTED' });
    });

    it('a json school that does not say it honours them: decided unanswered, never sent again, and listed to reconcile', async () => {
      const world = await submitWorld(ds, [
        { caps: [{ period: 'total', limit: 10 }], delivery: { adapter: 'json', url: school.url('/accept'), timeout_ms: TIMEOUT_MS } },
      ]);
      const { search, deliver } = await reservedLead(world);
      await claimedByADeadWorker(deliver.leadId);

      const answer = await delivery.run(deliver);

      expect(decisionOf(answer)).toMatchObject({ code: 'BUYER_REJECTED', reason: 'No response - Client' });
      expect(school.callsFor(deliver.leadId)).toBe(0);
      await expectReleased(deliver.leadId, world.offerIds[0], search.searchId);
      const unresolved = await new UnresolvedDeliveries(ds).list(new Date(Date.now() - 60_000), new Date(Date.now() + 60_000), 1000);
      expect(unresolved).toContainEqual(
        expect.objectContaining({ leadId: deliver.leadId, buyerKind: 'school', offerId: world.offerIds[0], code: 'BUYER_REJECTED' }),
      );
    });

    it('a json school with idempotent: true is sent again', async () => {
      const world = await submitWorld(ds, [
        {
          caps: [{ period: 'total', limit: 10 }],
          delivery: { adapter: 'json', url: school.url('/accept'), timeout_ms: TIMEOUT_MS, idempotent: true },
        },
      ]);
      const { deliver } = await reservedLead(world);
      await claimedByADeadWorker(deliver.leadId);

      expect(decisionOf(await delivery.run(deliver))).toMatchObject({ code: 'ACCEPTED' });
      expect(school.callsFor(deliver.leadId)).toBe(1);
    });
  });
});
