import Redis from 'ioredis';
import type { SearchMeta } from '@lr/contracts';
import { TokenBucket } from '@lr/redis';
import { orderedEntries, readSearchState, searchStateKey, SearchStateStore } from '@lr/search-state';
import { TEST_REDIS_URL, uniqueSuffix } from '../../support/test-env';

/**
 * The contract's token bucket against the real Redis, alone and with a read
 * sent right behind it on the same connection (how a poll takes its token and
 * reads its search in one round trip).
 */
describe('TokenBucket', () => {
  const redis = new Redis(TEST_REDIS_URL, { keyPrefix: `test:${uniqueSuffix()}:` });
  const bucket = new TokenBucket(redis);
  const store = new SearchStateStore(redis);
  afterAll(() => redis.disconnect());

  const limit = { perMinute: 60, burst: 3 };

  it('admits exactly the burst, then refuses with the wait for the next token', async () => {
    const decisions = await Promise.all(Array.from({ length: 5 }, () => bucket.take('k1:search', limit)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(3);
    const refused = decisions.filter((d) => !d.allowed);
    expect(refused).toHaveLength(2);
    for (const d of refused) expect(d).toEqual(expect.objectContaining({ retryAfterSeconds: 1 }));
    expect(
      decisions
        .map((d) => Math.floor(d.remaining))
        .slice(0, 3)
        .sort(),
    ).toEqual([0, 1, 2]);
  });

  it('with a read sent right behind it, shares the bucket with take() and both are in flight at once (one round trip)', async () => {
    const meta: SearchMeta = {
      searchId: 's',
      version: 1,
      affiliateId: 'a',
      campaignId: 'c',
      isTest: false,
      createdAt: '2026-11-22T00:00:00.000Z',
      closesAt: '2026-11-22T00:00:45.000Z',
      processingDone: true,
      acceptedCount: 0,
      trueExclusiveAccepted: false,
      order: ['r1'],
    };
    await store.write(meta, [{ id: 'r1', json: Buffer.from(JSON.stringify({ svc_result_id: 'r1' })) }], 60);
    expect((await bucket.take('k2:results', limit)).allowed).toBe(true);

    const together = async () => {
      const taking = bucket.take('k2:results', limit);
      const reading = readSearchState(redis, 's');
      // Both are written before either answer is back: ioredis holds both, waiting for their replies.
      expect((redis as unknown as { commandQueue: { length: number } }).commandQueue.length).toBe(2);
      return { decision: await taking, cached: await reading };
    };
    const first = await together();
    expect(first.decision.allowed).toBe(true);
    expect(first.cached!.meta).toEqual(meta);
    expect(orderedEntries(first.cached!)!.map((e) => JSON.parse(e.toString()))).toEqual([{ svc_result_id: 'r1' }]);
    expect((await together()).decision.allowed).toBe(true);
    // take() took one, the two reads along two more: the burst of 3 is spent.
    const third = await together();
    expect(third.decision).toEqual(expect.objectContaining({ allowed: false, retryAfterSeconds: 1 }));
  });

  it('a read of an unknown search is undefined; a failed command throws', async () => {
    await redis.set(searchStateKey('not-a-hash'), 'x');
    expect(await readSearchState(redis, 'none')).toBeUndefined();
    await expect(readSearchState(redis, 'not-a-hash')).rejects.toThrow(/WRONGTYPE/);
  });
});
