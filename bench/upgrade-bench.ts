import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { dataSourceOptions, MIGRATIONS } from '../libs/persistence/src';
import { adminSql } from './support/admin-sql';
import { ROOT } from './support/app-process';
import { benchLog as log, runBench } from './support/bench-main';

/**
 * `npm run bench:upgrade`: how long the migration to the partitioned, compact
 * search storage (BoundedSearchStorage) takes on a database that the previous
 * schema filled: SEARCHES 50-offer searches (each with its 50 result rows and
 * a partner call) and a submit for every 30th. The figure sizes the upgrade's
 * maintenance window (docs/runbooks/retention.md, Upgrading).
 *
 * Its own database, leadrouter_bench_upgrade, dropped before and after
 * (UPGRADE_SEED_ONLY=1 seeds it and leaves it, to study the migration's
 * statements).
 */
const SEARCHES = Number(process.env.UPGRADE_SEARCHES ?? 20_000);
const OFFERS = 50;
const BATCH = 2_000;
const DATABASE_NAME = 'leadrouter_bench_upgrade';
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${DATABASE_NAME}`;

async function main(): Promise<void> {
  await adminSql(`DROP DATABASE IF EXISTS ${DATABASE_NAME} WITH (FORCE)`);
  await adminSql(`CREATE DATABASE ${DATABASE_NAME}`);
  // The schema just before the upgrade's migration (BoundedSearchStorage); later migrations run after it, in its timing.
  const last = MIGRATIONS.findIndex((m) => new m().name === 'BoundedSearchStorage1764800000000');
  const before = new DataSource({
    ...dataSourceOptions({ url: DATABASE_URL, poolSize: 2, timeoutMs: 600_000 }),
    migrations: MIGRATIONS.slice(0, last),
  } as never);
  await before.initialize();
  await before.runMigrations({ transaction: 'each' });
  await before.query(`SET statement_timeout = 0`);

  // A catalog: one affiliate, campaign and key, 50 offers on 50 schools, a partner.
  await before.query(
    `INSERT INTO affiliates (id, name, status) VALUES ('00000000-0000-4000-8000-000000000001', 'Upgrade bench', 'active')`,
  );
  await before.query(
    `INSERT INTO campaigns (id, affiliate_id, name, status) VALUES ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001', 'C', 'active')`,
  );
  await before.query(
    `INSERT INTO api_keys (id, affiliate_id, key_hash, key_prefix) VALUES ('00000000-0000-4000-8000-000000000003', '00000000-0000-4000-8000-000000000001', repeat('a', 64), 'lr_bench')`,
  );
  await before.query(
    `INSERT INTO partners (id, name, adapter, base_url) VALUES ('00000000-0000-4000-8000-000000000004', 'P', 'sandbox', 'http://127.0.0.1:9/p')`,
  );
  await before.query(
    `INSERT INTO schools (id, name) SELECT ('00000000-0000-4000-8001-' || lpad(i::text, 12, '0'))::uuid, 'Bench College ' || i FROM generate_series(1, ${OFFERS}) i`,
  );
  await before.query(
    `INSERT INTO offers (id, name, school_id, source, offer_type, status, delivery)
     SELECT ('00000000-0000-4000-8002-' || lpad(i::text, 12, '0'))::uuid, 'Bench College ' || i || ' Online', ('00000000-0000-4000-8001-' || lpad(i::text, 12, '0'))::uuid,
            'own', 'shared', 'active', '{"adapter":"sandbox","url":"http://127.0.0.1:9/s"}'
       FROM generate_series(1, ${OFFERS}) i`,
  );

  const seedStart = performance.now();
  for (let from = 0; from < SEARCHES; from += BATCH) {
    const n = Math.min(BATCH, SEARCHES - from);
    // Entries as the previous schema stored them: about 1 KB each, the offer's texts copied into every result.
    await before.query(
      `WITH s AS (
         INSERT INTO searches (id, affiliate_id, campaign_id, api_key_id, lead, tracking, consumer_ip, ip_source, created_at, closes_at,
                               processing_done_at, state_version, offer_decisions, result_order, person_keys)
         SELECT gen_random_uuid(), '00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000003',
                jsonb_build_object('first_name', 'Pat', 'last_name', 'Lee' || g, 'email', 'p' || g || '@example.org', 'phone', '5125550' || lpad((g % 1000)::text, 3, '0'),
                                   'state', 'TX', 'zip', '78701', 'education_level', 'associate', 'grad_year', 2012, 'dob', '1990-01-01'),
                '{"ip_address":"73.12.44.10","subid":"bench"}', '73.12.44.10', 'consumer', now() - interval '1 day', now() - interval '1 day',
                now() - interval '1 day', 1, '{}', '{}', '[]'
           FROM generate_series($1::int, $1::int + $2::int - 1) g
         RETURNING id
       ), r AS (
         INSERT INTO results (id, search_id, offer_id, campaign_id, entry, expires_at, created_at)
         SELECT gen_random_uuid(), s.id, ('00000000-0000-4000-8002-' || lpad(i::text, 12, '0'))::uuid, '00000000-0000-4000-8000-000000000002',
                jsonb_build_object(
                  'svc_result_id', gen_random_uuid(), 'campaign_id', '00000000-0000-4000-8000-000000000002',
                  'offer', jsonb_build_object('id', ('00000000-0000-4000-8002-' || lpad(i::text, 12, '0')), 'name', 'Bench College ' || i || ' Online',
                                              'offer_type', 'shared', 'is_exclusive', false,
                                              'tcpa_text', 'By clicking Request Info I agree that Bench College ' || i || ' and its representatives may contact me by phone, text or email, including by automated means, about its programs. Consent is not a condition of purchase.'),
                  'school', jsonb_build_object('name', 'Bench College ' || i, 'logo_url', 'https://cdn.example.org/bench/college-' || i || '.png'),
                  'programs', '[{"value":"bsn","label":"BS in Nursing","payout":22.5},{"value":"bba","label":"BBA in Business Administration","payout":20},{"value":"cj","label":"BS in Criminal Justice","payout":20}]'::jsonb,
                  'payout', 22.5,
                  'form_fields', '[{"name":"hs_grad_year","label":"High school graduation year","type":"select","required":true,"options":[{"value":"2010","label":"2010"},{"value":"2011","label":"2011"},{"value":"2012","label":"2012"}]},{"name":"rn_license","label":"Do you hold an active RN license?","type":"select","required":false,"required_when":{"program_ids":["bsn"]},"options":[{"value":"yes","label":"Yes"},{"value":"no","label":"No"}]}]'::jsonb,
                  'expires_at', to_char((now() - interval '1 day' + interval '15 minutes') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
                now() - interval '1 day' + interval '15 minutes', now() - interval '1 day'
           FROM s CROSS JOIN generate_series(1, ${OFFERS}) i
         RETURNING search_id, id
       ), o AS (
         UPDATE searches x SET result_order = y.ids FROM (SELECT search_id, array_agg(id) AS ids FROM r GROUP BY search_id) y WHERE x.id = y.search_id RETURNING 1
       )
       INSERT INTO search_partner_calls (search_id, partner_id, offer_ids, status) SELECT id, '00000000-0000-4000-8000-000000000004', '{}', 'answered' FROM s`,
      [from, n],
    );
    log(`seeded ${from + n} of ${SEARCHES} searches (${((performance.now() - seedStart) / 1000).toFixed(0)} s)`);
  }
  await before.query(`ANALYZE`);
  const sizeBefore = Number((await before.query(`SELECT pg_database_size(current_database()) AS b`))[0].b);
  await before.destroy();
  if (process.env.UPGRADE_SEED_ONLY === '1') return void log(`seeded; ${DATABASE_NAME} left for inspection`);

  const after = new DataSource(dataSourceOptions({ url: DATABASE_URL, poolSize: 2, timeoutMs: 3_600_000 }));
  await after.initialize();
  const t0 = performance.now();
  await after.runMigrations({ transaction: 'each' });
  const ms = performance.now() - t0;
  await after.query(`VACUUM ANALYZE`);
  const sizeAfter = Number((await after.query(`SELECT pg_database_size(current_database()) AS b`))[0].b);
  const entries = Number((await after.query(`SELECT count(*) AS n FROM results`))[0].n);
  await after.destroy();
  await adminSql(`DROP DATABASE IF EXISTS ${DATABASE_NAME} WITH (FORCE)`);

  const figures = {
    date: new Date().toISOString(),
    machine: { nproc: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version },
    searches: SEARCHES,
    results: entries,
    migrationMs: Math.round(ms),
    msPer100kSearches: Math.round((ms / SEARCHES) * 100_000),
    databaseBytes: { before: sizeBefore, after: sizeAfter },
  };
  process.stdout.write(
    `\nUpgrade to the partitioned search storage — ${SEARCHES.toLocaleString('en-US')} searches (${entries.toLocaleString('en-US')} results)\n` +
      `  migration: ${(ms / 1000).toFixed(1)} s, ${(figures.msPer100kSearches / 1000).toFixed(0)} s per 100,000 searches\n` +
      `  database: ${(sizeBefore / 1e6).toFixed(0)} MB before, ${(sizeAfter / 1e6).toFixed(0)} MB after (vacuumed)\n`,
  );
  if (process.env.UPGRADE_SEARCHES === undefined) {
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    const file = join(ROOT, 'bench', 'results', `upgrade-${figures.date.slice(0, 10)}.json`);
    writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
    log(`figures written to ${file}`);
  }
}

runBench(main, async () => {
  if (process.env.UPGRADE_SEED_ONLY === '1') return;
  await adminSql(`DROP DATABASE IF EXISTS ${DATABASE_NAME} WITH (FORCE)`).catch(() => undefined);
});
