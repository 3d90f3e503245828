import type Redis from 'ioredis';
import type { SearchMeta } from '@lr/contracts';
import type { SearchRepository } from '@lr/persistence';
import type { CachedSearch } from './search-state-store';
import { SearchStateReader } from './search-state.reader';

const head = {
  searchId: 's1',
  version: 2,
  affiliateId: 'a',
  campaignId: 'c',
  isTest: false,
  createdAt: '2026-11-25T00:00:00.000Z',
  closesAt: '2026-11-25T00:00:45.000Z',
  processingDone: false,
  acceptedCount: 0,
  trueExclusiveAccepted: false,
};
const entry = (id: string) => ({ svc_result_id: id, name: `é ${id}` });
const bytes = (v: unknown) => Buffer.from(JSON.stringify(v));

/** A reader over no Redis (what Redis held is given) and `repo` for PostgreSQL, the calls to which are counted by dependency. */
function readerOver(repo: ReturnType<typeof postgresWith>) {
  const calls: string[] = [];
  const reader = new SearchStateReader({} as Redis, repo as unknown as SearchRepository, (dependency, call) => {
    calls.push(dependency);
    return call();
  });
  return { reader, calls };
}

/** The search as PostgreSQL holds it (or nothing), counting the reads. */
function postgresWith(state: { meta: SearchMeta; entries: Buffer[] } | undefined) {
  const repo = { reads: 0, state: async () => (repo.reads++, state) };
  return repo;
}
const json = (view: { entries: Buffer[] } | undefined) => view?.entries.map((e) => JSON.parse(e.toString('utf8')));
const cachedOf = (meta: SearchMeta, entries: Record<string, unknown>): CachedSearch => ({
  meta,
  entries: new Map(Object.entries(entries).map(([id, e]) => [id, bytes(e)])),
});

describe('SearchStateReader.complete (a poll, from what Redis held)', () => {
  const pg = { meta: { ...head, order: ['pg'] }, entries: [bytes(entry('pg'))] };

  it('copies the entries Redis holds as stored, in order', async () => {
    const repo = postgresWith(pg);
    const { reader, calls } = readerOver(repo);
    const view = await reader.complete('s1', cachedOf({ ...head, order: ['r2', 'r1'] }, { r1: entry('r1'), r2: entry('r2') }));
    expect(view?.meta.searchId).toBe('s1');
    expect(json(view)).toEqual([entry('r2'), entry('r1')]);
    expect(repo.reads).toBe(0);
    expect(calls).toEqual([]);
  });

  it('reads PostgreSQL when an entry in the order is not in Redis yet', async () => {
    const { reader, calls } = readerOver(postgresWith(pg));
    const view = await reader.complete('s1', cachedOf({ ...head, order: ['r1', 'r2'] }, { r1: {} }));
    expect(json(view)).toEqual([entry('pg')]);
    expect(calls).toEqual(['postgres']);
  });

  it('reads PostgreSQL when Redis had nothing (expired, flushed or failed): an answer, not a 503', async () => {
    const repo = postgresWith(pg);
    const view = await readerOver(repo).reader.complete('s1', undefined);
    expect(repo.reads).toBe(1);
    expect(json(view)).toEqual([entry('pg')]);
  });

  it('is undefined when neither has the search', async () => {
    expect(await readerOver(postgresWith(undefined)).reader.complete('s1', undefined)).toBeUndefined();
  });
});
