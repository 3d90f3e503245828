import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { allMigrations, dataSourceOptions, LeadStoryRepository, MIGRATIONS, ProcessedMessages, SearchRepository } from '@lr/persistence';
import { TEST_PERSON_KEY_SECRET } from '../../support/person-key';
import { TEST_DATABASE_URL } from '../../support/test-env';

/**
 * The upgrade to the compact, partitioned layout (migration
 * BoundedSearchStorage) on a database holding searches, results, partner
 * calls, leads and handled messages written by the schema before it: every
 * search and every result entry reads back as it was, in the legacy
 * partition, and the repositories find them.
 */
describe('upgrade to the partitioned search storage', () => {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${url.pathname.slice(1)}_upgrade`;
  // The upgrade's migration, and the schema just before it (later migrations are not part of this upgrade).
  const LAST = MIGRATIONS.findIndex((m) => new m().name === 'BoundedSearchStorage1764800000000');
  let before: DataSource;
  let after: DataSource;

  beforeAll(async () => {
    const admin = new URL(TEST_DATABASE_URL);
    admin.pathname = '/postgres';
    const c = new Client({ connectionString: admin.toString() });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS "${url.pathname.slice(1)}" WITH (FORCE)`);
    await c.query(`CREATE DATABASE "${url.pathname.slice(1)}"`);
    await c.end();
    before = new DataSource({
      ...dataSourceOptions({ url: url.toString(), poolSize: 2, timeoutMs: 10_000 }),
      migrations: MIGRATIONS.slice(0, LAST),
    } as never);
    await before.initialize();
    await before.runMigrations({ transaction: 'each' });
  });

  afterAll(async () => {
    if (before?.isInitialized) await before.destroy();
    if (after?.isInitialized) await after.destroy();
  });

  it('moves every search, result, partner call and handled message into the new layout', async () => {
    const ids = {
      aff: randomUUID(),
      campaign: randomUUID(),
      key: randomUUID(),
      school: randomUUID(),
      partner: randomUUID(),
      offers: [randomUUID(), randomUUID(), randomUUID()],
    };
    await before.query(`INSERT INTO affiliates (id, name, status) VALUES ($1, 'Upgrade affiliate', 'active')`, [ids.aff]);
    await before.query(`INSERT INTO schools (id, name) VALUES ($1, 'Upgrade college')`, [ids.school]);
    await before.query(
      `INSERT INTO partners (id, name, adapter, base_url) VALUES ($1, 'Upgrade partner', 'sandbox', 'http://127.0.0.1:9/p')`,
      [ids.partner],
    );
    for (const [i, o] of ids.offers.entries()) {
      await before.query(
        `INSERT INTO offers (id, name, school_id, source, offer_type, status, delivery) VALUES ($1, $2, $3, 'own', 'shared', 'active', '{"adapter":"sandbox","url":"http://127.0.0.1:9/s"}')`,
        [o, `Offer ${i}`, ids.school],
      );
    }
    await before.query(`INSERT INTO campaigns (id, affiliate_id, name, status) VALUES ($1, $2, 'C', 'active')`, [ids.campaign, ids.aff]);
    await before.query(`INSERT INTO api_keys (id, affiliate_id, key_hash, key_prefix) VALUES ($1, $2, $3, 'lr_test_')`, [
      ids.key,
      ids.aff,
      'a'.repeat(64),
    ]);

    // 30 searches as the previous schema stored them: rows in `results` with whole entries, in `result_order`.
    const searches: Array<{ id: string; entries: Array<Record<string, unknown>> }> = [];
    for (let n = 0; n < 30; n++) {
      const id = randomUUID();
      const entries = ids.offers.map((offerId, i) => ({
        svc_result_id: randomUUID(),
        campaign_id: ids.campaign,
        offer: { id: offerId, name: `Offer ${i}`, offer_type: 'shared', is_exclusive: false, tcpa_text: `I agree (${i})` },
        school: { name: 'Upgrade college', logo_url: null },
        programs: [{ value: 'bsn', label: 'BSN', payout: 10 + i }],
        payout: 10 + i,
        form_fields: [],
        expires_at: new Date(Date.UTC(2026, 10, 20, 10, n, i)).toISOString(),
      }));
      const order = n % 2 === 0 ? entries.map((e) => e.svc_result_id) : [...entries].reverse().map((e) => e.svc_result_id);
      await before.query(
        `INSERT INTO searches (id, affiliate_id, campaign_id, api_key_id, lead, consumer_ip, ip_source, closes_at, created_at, result_order, offer_decisions, person_keys)
         VALUES ($1, $2, $3, $4, '{"first_name":"x"}', '73.12.44.10', 'consumer', now(), now() - interval '3 days', $5::uuid[], '{}', '[]')`,
        [id, ids.aff, ids.campaign, ids.key, order],
      );
      for (const e of entries) {
        await before.query(
          `INSERT INTO results (id, search_id, offer_id, campaign_id, entry, partner_data, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [
            e.svc_result_id,
            id,
            (e.offer as { id: string }).id,
            ids.campaign,
            JSON.stringify(e),
            n === 0 ? JSON.stringify({ partnerResultId: 'pr-1' }) : null,
            e.expires_at,
          ],
        );
      }
      await before.query(`INSERT INTO search_partner_calls (search_id, partner_id, offer_ids, status) VALUES ($1, $2, $3, 'answered')`, [
        id,
        ids.partner,
        [ids.offers[0]],
      ]);
      searches.push({ id, entries: order.map((r) => entries.find((e) => e.svc_result_id === r)!) });
    }
    const submitted = searches[3];
    const leadId = randomUUID();
    await before.query(
      `INSERT INTO leads (id, kind, search_id, result_id, affiliate_id, campaign_id, offer_id, api_key_id, lead, consumer_ip, status, code, lead_group_id)
       VALUES ($1, 'result_submit', $2, $3, $4, $5, $6, $7, '{}', '73.12.44.10', 'rejected', 'BUYER_REJECTED', $2)`,
      [
        leadId,
        submitted.id,
        submitted.entries[0].svc_result_id,
        ids.aff,
        ids.campaign,
        (submitted.entries[0].offer as { id: string }).id,
        ids.key,
      ],
    );
    await before.query(
      `INSERT INTO processed_messages (consumer, message_id, message_type) VALUES ('partner-adapter', 'm-1', 'partner.submit.v1')`,
    );
    const entriesBefore: Array<{ id: string; entry: unknown }> = await before.query(`SELECT id, entry FROM results ORDER BY id`);

    // The upgrade.
    await before.destroy();
    // The upgrade and every migration after it, as `ops db migrate` runs them (the read models below read their columns).
    const all = allMigrations(TEST_PERSON_KEY_SECRET);
    after = new DataSource(dataSourceOptions({ url: url.toString(), poolSize: 2, timeoutMs: 10_000, migrations: all }));
    await after.initialize();
    expect((await after.runMigrations({ transaction: 'each' })).map((m) => m.name)).toEqual(all.slice(LAST).map((m) => new m().name));

    // Every result entry as it was (the view rebuilds it), every search in the legacy partition, in its order.
    const entriesAfter: Array<{ id: string; entry: unknown }> = await after.query(`SELECT id, entry FROM results ORDER BY id`);
    expect(entriesAfter).toEqual(entriesBefore);
    expect(await after.query(`SELECT DISTINCT part_day::text AS day FROM searches`)).toEqual([{ day: '1970-01-02' }]);
    const repo = new SearchRepository(after);
    for (const s of searches) {
      const state = await repo.state(s.id);
      expect(state!.meta.order).toEqual(s.entries.map((e) => e.svc_result_id));
      expect(state!.entries.map((b) => JSON.parse(b.toString('utf8')))).toEqual(s.entries);
    }
    expect(await repo.resultOwner(submitted.entries[0].svc_result_id as string, submitted.id)).toMatchObject({
      searchId: submitted.id,
      affiliateId: ids.aff,
    });
    expect(
      await after.query(`SELECT partner_data FROM results WHERE search_id = $1 AND partner_data IS NOT NULL`, [searches[0].id]),
    ).toHaveLength(3);
    // One template per distinct entry text (each entry differs only by id and expiry across searches).
    expect(Number((await after.query(`SELECT count(*) AS n FROM result_templates`))[0].n)).toBe(3);
    expect(Number((await after.query(`SELECT count(*) AS n FROM search_partner_calls`))[0].n)).toBe(30);

    // The lead story reads the submitted search and its results.
    const story = await new LeadStoryRepository(after).read(leadId);
    expect(story!.search!.id).toBe(submitted.id);
    expect(story!.results.map((r) => r.id)).toEqual(submitted.entries.map((e) => e.svc_result_id));

    // A message handled before the upgrade is still recognised.
    expect(await new ProcessedMessages(after).claimOnce('partner-adapter', { messageId: 'm-1', type: 'partner.submit.v1' })).toBe(false);
    expect(await new ProcessedMessages(after).claimOnce('partner-adapter', { messageId: 'm-2', type: 'partner.submit.v1' })).toBe(true);
  });
});
