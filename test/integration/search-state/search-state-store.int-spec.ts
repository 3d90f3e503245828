import Redis from 'ioredis';
import type { SearchMeta } from '@lr/contracts';
import { joinEntries, orderedEntries, readSearchState, readShownResult, searchStateKey, SearchStateStore } from '@lr/search-state';
import { TEST_REDIS_URL, uniqueSuffix } from '../../support/test-env';

/** The search's hot state in Redis: entries are added by every writer, the meta only by a newer version. */
describe('SearchStateStore', () => {
  const redis = new Redis(TEST_REDIS_URL, { keyPrefix: `test:${uniqueSuffix()}:` });
  const store = new SearchStateStore(redis);
  afterAll(() => redis.disconnect());

  const meta = (searchId: string, version: number, order: string[], processingDone = false): SearchMeta => ({
    searchId,
    version,
    affiliateId: 'a',
    campaignId: 'c',
    isTest: false,
    createdAt: '2026-11-21T00:00:00.000Z',
    closesAt: '2026-11-21T00:00:45.000Z',
    processingDone,
    acceptedCount: 0,
    trueExclusiveAccepted: false,
    order,
  });
  /** An entry as its maker hands it over: the value, and its JSON serialized once. */
  const made = (id: string, value: unknown) => ({ id, entry: value, json: Buffer.from(JSON.stringify(value)) });
  const entry = (id: string) => made(id, { svc_result_id: id, name: `é ${id}` });

  it('writes in any order and ends on the newest meta with every entry', async () => {
    const id = 'a';
    const key = searchStateKey(id);
    expect(await store.write(meta(id, 1, ['own']), [entry('own')], 60)).toBe(true);
    // Version 3 (both partners merged) arrives before version 2 (the first partner).
    expect(await store.write(meta(id, 3, ['p2', 'own', 'p1'], true), [entry('p2')], 60)).toBe(true);
    let cached = (await store.read(id))!;
    expect(cached.meta.version).toBe(3);
    expect(orderedEntries(cached)).toBeUndefined(); // p1 is still on its way: the reader goes to PostgreSQL
    expect(await store.write(meta(id, 2, ['own', 'p1']), [entry('p1')], 60)).toBe(false);
    cached = (await store.read(id))!;
    expect(cached.meta).toEqual(meta(id, 3, ['p2', 'own', 'p1'], true));
    expect(orderedEntries(cached)!.map((e) => JSON.parse(e.toString()))).toEqual([
      entry('p2').entry,
      entry('own').entry,
      entry('p1').entry,
    ]);
    expect(await redis.ttl(key)).toBeGreaterThan(50);
  });

  it("the poll's read on the client (beside the rate limit) decodes as the store's read does, from Redis's own reply", async () => {
    const id = 'on-client';
    const key = searchStateKey(id);
    await store.write(meta(id, 2, ['own', 'p1']), [entry('own'), entry('p1')], 60);
    // Not ioredis's object form: the flat array of names and values Redis sent.
    expect(Array.isArray(await redis.callBuffer('HGETALL', `${redis.options.keyPrefix}${key}`))).toBe(true);
    const read = await readSearchState(redis, id);
    expect(read).toEqual(await store.read(id));
    expect(orderedEntries(read!)!.map((e) => JSON.parse(e.toString()))).toEqual([entry('own').entry, entry('p1').entry]);
  });

  it("a submit's read of one shown result: whose search, which campaign and offer; undefined for a result or search Redis has not", async () => {
    const id = 'shown';
    const shown = made('r1', { svc_result_id: 'r1', campaign_id: 'c9', offer: { id: 'o7' } });
    await store.write(meta(id, 1, ['r1']), [shown], 60);
    expect(await readShownResult(redis, id, 'r1')).toEqual({ affiliateId: 'a', campaignId: 'c9', offerId: 'o7' });
    expect(await readShownResult(redis, id, 'r2')).toBeUndefined();
    expect(await readShownResult(redis, 'none', 'r1')).toBeUndefined();
  });

  it('a write only ever extends the lifetime: a writer that knows fewer expiries never shortens it', async () => {
    const id = 'ttl';
    const key = searchStateKey(id);
    await store.write(meta(id, 1, ['own']), [entry('own')], 900);
    expect(await redis.ttl(key)).toBeGreaterThan(890);
    await store.write(meta(id, 2, ['own']), [], 60);
    expect(await redis.ttl(key)).toBeGreaterThan(890);
    await store.write(meta(id, 3, ['own', 'p1']), [entry('p1')], 1800);
    expect(await redis.ttl(key)).toBeGreaterThan(1790);
  });

  it('a rewrite of the same version changes nothing; an unknown search reads as undefined', async () => {
    const id = 'b';
    await store.write(meta(id, 1, ['own']), [entry('own')], 60);
    expect(await store.write(meta(id, 1, []), [], 60)).toBe(false);
    expect((await store.read(id))!.meta.order).toEqual(['own']);
    expect(await store.read('none')).toBeUndefined();
  });

  it('entries come back as the bytes written and join into a JSON answer unchanged (multi-byte text too)', async () => {
    const id = 'c';
    const odd = made('x', { svc_result_id: 'x', name: 'École 東京 😀 "q" \\ \u2028' });
    await store.write(meta(id, 1, ['x', 'own']), [odd, entry('own')], 60);
    const entries = orderedEntries((await store.read(id))!)!;
    expect(entries.every((e) => Buffer.isBuffer(e))).toBe(true);
    expect(entries[0].equals(Buffer.from(JSON.stringify(odd.entry)))).toBe(true);
    const body = joinEntries('{"a":1,"offers":', entries, '}');
    expect(JSON.parse(body.toString('utf8'))).toEqual({ a: 1, offers: [odd.entry, entry('own').entry] });
    expect(joinEntries('{"offers":', [], '}').toString()).toBe('{"offers":[]}');
  });
});
