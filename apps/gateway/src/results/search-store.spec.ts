import type Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import type { SearchMeta, SearchState } from '@lr/contracts';
import { loadSearchState } from '@lr/persistence';
import { Dependencies, DependencyFailure } from '../http/dependencies';
import { SearchStore } from './search-store';

jest.mock('@lr/persistence', () => ({ loadSearchState: jest.fn() }));
const fromPostgres = loadSearchState as jest.MockedFunction<typeof loadSearchState>;

const head = {
  searchId: 's1', version: 2, affiliateId: 'a', campaignId: 'c', isTest: false, createdAt: '2026-11-25T00:00:00.000Z',
  closesAt: '2026-11-25T00:00:45.000Z', processingDone: false, acceptedCount: 0, trueExclusiveAccepted: false,
};
const entry = (id: string) => ({ svc_result_id: id, name: `é ${id}` });

/** A Redis whose HGETALL (Buffer form) answers `fields`, or fails. */
function redisAnswering(fields: Record<string, Buffer> | Error): Redis {
  return {
    defineCommand: () => undefined,
    hgetallBuffer: () => (fields instanceof Error ? Promise.reject(fields) : Promise.resolve(fields)),
  } as unknown as Redis;
}

/** Dependencies.call as the gateway runs it, minus probes and deadlines: a failure is a DependencyFailure. */
const deps = {
  call: async <T>(name: 'redis' | 'postgres', fn: () => Promise<T>) => {
    try {
      return await fn();
    } catch (e) {
      throw new DependencyFailure(name, e);
    }
  },
} as unknown as Dependencies;

const store = (redis: Redis) => new SearchStore({} as DataSource, deps, redis);
const json = (view: { entries: Buffer[] } | undefined) => view?.entries.map((e) => JSON.parse(e.toString('utf8')));

describe('SearchStore.read (a search answer read after the orchestrator replied)', () => {
  beforeEach(() => {
    fromPostgres.mockReset();
    fromPostgres.mockResolvedValue({ ...head, offers: [entry('pg')] } as unknown as SearchState);
  });

  it('reads Redis and copies the entries as stored, in order', async () => {
    const meta: SearchMeta = { ...head, order: ['r2', 'r1'] };
    const redis = redisAnswering({
      meta: Buffer.from(JSON.stringify(meta)),
      v: Buffer.from('2'),
      'r:r1': Buffer.from(JSON.stringify(entry('r1'))),
      'r:r2': Buffer.from(JSON.stringify(entry('r2'))),
    });
    const view = await store(redis).read('s1');
    expect(view?.meta.searchId).toBe('s1');
    expect(json(view)).toEqual([entry('r2'), entry('r1')]);
    expect(fromPostgres).not.toHaveBeenCalled();
  });

  it('reads PostgreSQL when an entry in the order is not in Redis yet', async () => {
    const meta: SearchMeta = { ...head, order: ['r1', 'r2'] };
    const view = await store(redisAnswering({ meta: Buffer.from(JSON.stringify(meta)), 'r:r1': Buffer.from('{}') })).read('s1');
    expect(json(view)).toEqual([entry('pg')]);
  });

  it('reads PostgreSQL when Redis fails (the list was stored before the reply): an answer, not a 503', async () => {
    const view = await store(redisAnswering(new Error('ECONNREFUSED'))).read('s1');
    expect(fromPostgres).toHaveBeenCalledTimes(1);
    expect(json(view)).toEqual([entry('pg')]);
  });

  it('is undefined when neither has the search', async () => {
    fromPostgres.mockResolvedValue(undefined);
    expect(await store(redisAnswering({})).read('s1')).toBeUndefined();
  });
});
