import { randomUUID } from 'node:crypto';
import { newLeadId } from '@lr/domain';
import type { DataSource } from 'typeorm';
import { freshPerson, mediumDataSource, storeSearch, submitWorld, SubmitWorld } from '../../../../test/support/medium-world';
import { idDay, KEPT_DAY } from '../partitions/partition-days';
import { LeadStoryRepository } from './lead-story.repository';
import { SearchRepository } from './search.repository';
import { newResult } from '../queries/stored-result';

/**
 * A search's compact storage (docs/storage.md) against the real PostgreSQL:
 * entries rebuilt from the day's templates byte for byte, one template per
 * distinct entry a day, the search found by id in its day's partition or in
 * the kept one, and a process whose template cache went stale (the database
 * was reset under it) writes what is missing.
 */
describe('SearchRepository storage (medium)', () => {
  let ds: DataSource;
  let world: SubmitWorld;

  beforeAll(async () => {
    ds = await mediumDataSource(4);
    world = await submitWorld(ds, [{}, {}, { payout: null }, { offerType: 'exclusive' }, {}]);
  });
  afterAll(() => ds?.destroy());

  const templatesOf = async (searchId: string): Promise<number> =>
    Number((await ds.query(`SELECT count(*) AS n FROM result_templates WHERE part_day = $1::date`, [idDay(searchId)]))[0].n);

  it("stores a search in its id's day and answers its entries exactly as shown", async () => {
    const searchId = newLeadId();
    const stored = await storeSearch(world, freshPerson(), { searchId });
    const [row] = await ds.query(`SELECT part_day::text AS day, cardinality(result_order) AS n FROM searches WHERE id = $1`, [searchId]);
    expect(row).toEqual({ day: new Date().toISOString().slice(0, 10), n: 5 });
    const state = await new SearchRepository(ds).state(searchId);
    const shown = [...stored.results.values()].map((r) => JSON.stringify(r.entry));
    expect(state!.entries.map((e) => e.toString('utf8')).sort()).toEqual(shown.sort());
    // The view rebuilds the same entries.
    const view: Array<{ entry: unknown }> = await ds.query(`SELECT entry FROM results WHERE search_id = $1`, [searchId]);
    expect(view.map((v) => v.entry)).toEqual(expect.arrayContaining([...stored.results.values()].map((r) => r.entry)));
  });

  it("stores only the decisions of offers not shown, and the operator's read joins the shown ones back from the results", async () => {
    const searchId = newLeadId();
    const stored = await storeSearch(world, freshPerson(), { searchId });
    const [row] = await ds.query(`SELECT offer_decisions FROM searches WHERE id = $1`, [searchId]);
    expect(row.offer_decisions).toEqual({});
    const story = await new LeadStoryRepository(ds).read(searchId);
    expect(Object.fromEntries(story!.offerChecks.map((c) => [c.offer_id, c.decision]))).toEqual(
      Object.fromEntries([...stored.results.entries()].map(([offerId, r]) => [offerId, { shown: true, result_id: r.resultId }])),
    );
  });

  it('names the same day for an id in node (idDay) as PostgreSQL stores it in (lr_id_day)', async () => {
    const at = [
      Date.parse('2026-11-26T00:00:00.000Z'),
      Date.parse('2026-11-26T23:59:59.999Z'),
      Date.parse('2024-02-29T12:00:00Z'),
      Date.now(),
    ];
    const ids = [...at.map((t) => newLeadId(t)), randomUUID(), '00000000-0000-7000-8000-000000000000'];
    const rows: Array<{ id: string; day: string }> = await ds.query(
      `SELECT id::text, lr_id_day(id)::text AS day FROM unnest($1::uuid[]) AS id`,
      [ids],
    );
    expect(rows.map((r) => r.day)).toEqual(ids.map(idDay));
  });

  it('keeps one template per distinct entry of a day, however many searches show it', async () => {
    const first = newLeadId();
    await storeSearch(world, freshPerson(), { searchId: first });
    const before = await templatesOf(first);
    for (let i = 0; i < 5; i++) await storeSearch(world, freshPerson(), { searchId: newLeadId() });
    expect(await templatesOf(first)).toBe(before);
  });

  it('writes the templates a stale cache said were stored', async () => {
    const repo = new SearchRepository(ds);
    const { results } = await storeSearch(world, freshPerson(), { searchId: newLeadId() });
    const storeWith = async (id: string): Promise<void> => {
      const stored = await repo.store({
        id,
        affiliateId: world.affiliateId,
        campaignId: world.campaignId,
        apiKeyId: world.apiKeyId,
        isTest: false,
        lead: freshPerson(),
        tracking: {},
        consumerIp: '73.12.44.10',
        ipSource: 'consumer',
        tcpaConsent: null,
        formCertUrl: null,
        universalLeadCert: null,
        createdAt: new Date(),
        closesAt: new Date(Date.now() + 45_000),
        personKeys: [],
        contact: null,
        decisions: {},
        results: [...results.values()].map((c) => newResult({ ...c, resultId: newLeadId() })),
        partnerCalls: [],
      });
      expect(stored).toBe(true);
    };
    const first = newLeadId();
    await storeWith(first); // the cache now holds the day's templates
    const forget = () =>
      ds.query(`DELETE FROM result_templates WHERE part_day = $1::date AND offer_id = ANY($2::uuid[])`, [idDay(first), world.offerIds]);
    await forget();
    const second = newLeadId();
    await storeWith(second); // sends none of them, finds them missing, writes them
    expect((await repo.state(second))!.entries).toHaveLength(5);
    expect((await repo.state(first))!.entries).toHaveLength(5);
  });

  it('finds a search moved to the kept partition by its id', async () => {
    const searchId = newLeadId();
    await storeSearch(world, freshPerson(), { searchId });
    const repo = new SearchRepository(ds);
    const before = await repo.state(searchId);
    await ds.query(
      `INSERT INTO result_templates (part_day, digest, offer_id, payout, body)
       SELECT DATE '${KEPT_DAY}', digest, offer_id, payout, body FROM result_templates WHERE part_day = $1::date ON CONFLICT DO NOTHING`,
      [idDay(searchId)],
    );
    await ds.query(`UPDATE searches SET part_day = DATE '${KEPT_DAY}' WHERE id = $1`, [searchId]);
    expect(await repo.exists(searchId)).toBe(true);
    expect(await repo.state(searchId)).toEqual(before);
    const [resultId] = before!.meta.order;
    expect(await repo.resultOwner(resultId, searchId)).toMatchObject({ id: resultId, searchId });
  });
});
