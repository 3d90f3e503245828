import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { createDataSource, SaleLedger, SearchRepository } from '../../../libs/persistence/src';
import { CampaignCatalog } from '../../../libs/platform/src';
import { SearchStatePublisher } from '../../../libs/search-state/src';
import { MergePartnerAnswer } from '../../../apps/search-orchestrator/src/merge-partner-answer/merge-partner-answer.usecase';
import { StartSearch } from '../../../apps/search-orchestrator/src/start-search/start-search.usecase';
import { partnerAnswer, partnerResult, person, searchRequest, world, World } from '../../support/medium-world';
import { TEST_DATABASE_URL, TEST_REDIS_URL, testConfig, uniqueSuffix } from '../../support/test-env';
import { dumpCatalogRows, ops, writeTemp } from './ops-test-support';

/**
 * `ops catalog simulate` on searches made by the real StartSearch: a
 * proposed catalog narrows one offer's states; the simulation must report
 * exactly the searches that lose it (and that its school's other offer takes
 * its place there), change nothing in the database, and refuse an invalid
 * file as `catalog apply` does.
 */
describe('ops catalog simulate', () => {
  let ds: DataSource;
  let redis: Redis;
  const specs = {
    wide: { school: 'A', priority: 5, payout: 30, eligibility: { states: ['TX', 'CA', 'FL'] } },
    alt: { school: 'A', priority: 1, payout: 12 },
    other: { school: 'B', payout: 8 },
    part: { school: 'C', partner: 'net', payout: 4 },
  };
  let w: World<keyof typeof specs>;
  const byState = new Map<string, string[]>();
  let from: Date;
  let to: Date;

  beforeAll(async () => {
    ds = createDataSource({ url: TEST_DATABASE_URL, poolSize: 2, timeoutMs: 10_000 });
    await ds.initialize();
    redis = new Redis(TEST_REDIS_URL, { keyPrefix: `test:${uniqueSuffix()}:`, maxRetriesPerRequest: 1 });
    w = await world(ds, specs);
    const config = testConfig('search-orchestrator', uniqueSuffix(), { CATALOG_CACHE_MS: '0' });
    const catalog = new CampaignCatalog(ds, config);
    const searches = new SearchRepository(ds);
    const state = new SearchStatePublisher(redis, searches);
    const start = new StartSearch(catalog, new SaleLedger(ds), searches, state, config);
    const merge = new MergePartnerAnswer(catalog, searches, new SaleLedger(ds), state, config);
    from = new Date(Date.now() - 1000);
    for (const st of ['TX', 'CA', 'FL', 'NV', 'TX', 'CA', 'TX', 'FL']) {
      const lead = person();
      lead.address = { ...lead.address, state: st };
      const msg = searchRequest(w, lead);
      await start.run(msg);
      byState.set(st, [...(byState.get(st) ?? []), msg.searchId]);
    }
    // The partner network answers the first search with a result; the others' calls stay pending.
    await merge.run(partnerAnswer(w, byState.get('TX')![0], 'net', [partnerResult(w, 'part')]));
    to = new Date(Date.now() + 1000);
  });

  afterAll(async () => {
    redis?.disconnect();
    await ds?.destroy();
  });

  it('a catalog that narrows one offer’s states: exactly the searches that lose it, and what takes its place', async () => {
    const proposed = writeTemp('narrow.json', w.catalog({ wide: { eligibility: { states: ['CA'] } } }));
    const rowsBefore = await dumpCatalogRows(ds, w.catalog());
    const run = await ops('catalog', 'simulate', proposed, '--from', from.toISOString(), '--to', to.toISOString(), '--json');
    expect(run.code).toBe(0);
    const sim = JSON.parse(run.stdout);
    const losing = [...byState.get('TX')!, ...byState.get('FL')!].sort();
    expect(sim).toMatchObject({ searches: 8, searches_changed: losing.length, campaigns: [{ id: w.ids.campaign }], partner_unknown: 0 });
    const offer = (k: keyof typeof specs) => sim.offers.find((o: { offer: { id: string } }) => o.offer.id === w.ids.offers[k]);
    expect(offer('wide')).toMatchObject({
      shown_before: 7,
      shown_after: 2,
      lost: losing.length,
      gained: 0,
      payout_before: 210,
      payout_after: 60,
      payout_change: -150,
      price_change: -225,
      ids_truncated: false,
    });
    expect([...offer('wide').lost_search_ids].sort()).toEqual(losing);
    expect(offer('alt')).toMatchObject({ shown_before: 1, shown_after: 6, lost: 0, gained: losing.length, payout_change: 60 });
    expect([...offer('alt').gained_search_ids].sort()).toEqual(losing);
    expect(offer('other')).toMatchObject({ shown_before: 8, shown_after: 8, lost: 0, gained: 0 });
    // The partner's result, shown on the one search it answered, stays shown; the calls still pending show nothing.
    expect(offer('part')).toMatchObject({ shown_before: 1, shown_after: 1, lost: 0, gained: 0, payout_before: 4 });
    expect(sim.totals).toMatchObject({ shown_before: 17, shown_after: 17, payout_change: -90 });
    expect(sim.rules).toEqual([
      { rule: 'not_eligible (states)', lost: losing.length, gained: 0 },
      { rule: 'school_already_shown', lost: 0, gained: losing.length },
    ]);
    // Read only: the catalog is as it was.
    expect(await dumpCatalogRows(ds, w.catalog())).toEqual(rowsBefore);

    const text = await ops('catalog', 'simulate', proposed, '--from', from.toISOString(), '--to', to.toISOString());
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^Simulation of \S+: 8 live searches \(created in \[\S+, \S+\)\) of 1 campaign\(s\) replayed in [\d.]+ s; 5 would show something else\.$/m,
    );
    expect(text.stdout).toMatch(
      new RegExp(
        `^Orch campaign \\S+ \\(${w.ids.campaign}\\)  ${w.offerName('wide')} \\(${w.ids.offers.wide}\\) +7 +2 +5 +0 +210\\.00 +-150\\.00 +315\\.00 +-225\\.00$`,
        'm',
      ),
    );
    expect(text.stdout).toMatch(/^ {2}not_eligible \(states\) +5 +0$/m);
  });

  it('--last n replays the newest n searches; the same catalog changes nothing', async () => {
    const same = writeTemp('same.json', w.catalog());
    const run = await ops('catalog', 'simulate', same, '--last', '3', '--json');
    expect(run.code).toBe(0);
    const sim = JSON.parse(run.stdout);
    expect(sim).toMatchObject({ searches: 3, searches_changed: 0, rules: [], window: { last: 3 } });
    expect(sim.offers.every((o: { lost: number; gained: number }) => o.lost === 0 && o.gained === 0)).toBe(true);
  });

  it('an invalid file is refused as catalog apply refuses it; a wrong window is a usage error', async () => {
    const bad = w.catalog() as { offers: Array<Record<string, unknown>> };
    bad.offers[0].eligibility = { states: ['XX'] };
    const run = await ops('catalog', 'simulate', writeTemp('bad.json', bad));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/bad\.json: 1 error; nothing simulated\.\n {2}offers\[0\]\.eligibility\.states\[0\]: /);
    const file = writeTemp('ok.json', w.catalog());
    expect((await ops('catalog', 'simulate', file, '--last', '5', '--from', '2026-01-01', '--to', '2026-01-02')).code).toBe(2);
    expect((await ops('catalog', 'simulate', file, '--from', '2026-01-02', '--to', '2026-01-01')).code).toBe(2);
    expect((await ops('catalog', 'simulate', file, '--from', '2026-01-02')).code).toBe(2);
  });
});
