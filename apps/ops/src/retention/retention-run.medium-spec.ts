import { newLeadId } from '@lr/domain';
import { keyStoreUrl } from '@lr/config';
import { createDataSource, createDayPartitions, dayOf, daySuffix, migrateDatabase, PartitionStore, SealedContacts } from '@lr/persistence';
import type { DataSource } from 'typeorm';
import { freshPerson, keyStoreSealer, MEDIUM_DATABASE_URL, storeSearch, submitWorld } from '../../../../test/support/medium-world';
import { TEST_PERSON_KEY_SECRET } from '../../../../test/support/person-key';
import { sealStored } from '../../../../test/support/sealed-rows';
import { dropDatabase, ownDatabaseUrl } from '../../../../test/support/test-database';
import { runRetention } from './retention-run';

/**
 * `ops retention run` and the key store: before a day of searches is
 * dropped, the data keys of its sealed searches are destroyed, so the key
 * store does not keep keys of searches that are gone; a day kept (today's)
 * keeps its keys, and a dry run destroys nothing. On a database of its own
 * (the run drops partitions).
 */
const url = ownDatabaseUrl(MEDIUM_DATABASE_URL, '_retention');
const DAY_MS = 24 * 3600 * 1000;

describe('retention run destroys the data keys of the searches it drops', () => {
  let ds: DataSource;
  const sealer = keyStoreSealer(url);

  beforeAll(async () => {
    await dropDatabase(url, 'medium');
    await dropDatabase(keyStoreUrl(url, undefined), 'medium');
    await migrateDatabase(url, TEST_PERSON_KEY_SECRET);
    ds = createDataSource({ url, poolSize: 2, timeoutMs: 10_000 });
    await ds.initialize();
  });
  afterAll(async () => {
    await ds?.destroy();
    await dropDatabase(url, 'medium');
    await dropDatabase(keyStoreUrl(url, undefined), 'medium');
  });

  it('destroys the keys of an expired day before dropping it, and keeps those of the days kept', async () => {
    const world = await submitWorld(ds, [{}]);
    const old = Date.now() - 40 * DAY_MS;
    const oldDay = dayOf(new Date(old));
    await createDayPartitions(ds, { from: oldDay, to: null, suffix: daySuffix(oldDay) });
    const stored = async (at: number, seal: boolean) => {
      const s = await storeSearch(world, freshPerson(), { searchId: newLeadId(at), at: new Date(at) });
      return seal ? (await sealStored(ds, sealer, 'searches', s.searchId)).sealed : null;
    };
    const expired = [await stored(old, true), await stored(old + 1000, true)];
    await stored(old + 2000, false);
    const kept = await stored(Date.now(), true);
    const run = (dryRun: boolean) =>
      runRetention(new PartitionStore(ds), {
        now: new Date(),
        settings: { searchDays: 30, messageDays: 30 },
        dryRun,
        dataKeys: { sealed: new SealedContacts(ds), keys: sealer },
      });

    const dry = await run(true);
    expect(dry.days.find((d) => d.family === 'searches' && d.day === oldDay)).toMatchObject({ dataKeys: null });
    expect((await sealer.tryOpenAll([...expired, kept].map((s) => s!))).every((p) => p !== null)).toBe(true);

    const done = await run(false);
    const day = done.days.find((d) => d.family === 'searches' && d.day === oldDay);
    expect(day).toMatchObject({ dataKeys: 2, kept: { searches: 0 } });
    expect(day!.partitions.map((p) => p.name)).toContain(`searches_${daySuffix(oldDay)}`);
    expect(await sealer.tryOpenAll(expired.map((s) => s!))).toEqual([null, null]);
    expect(await sealer.tryOpenAll([kept!])).not.toEqual([null]);
    expect((await new PartitionStore(ds).partitions()).map((p) => p.name)).not.toContain(`searches_${daySuffix(oldDay)}`);
  });
});
