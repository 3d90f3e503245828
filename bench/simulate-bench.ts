import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { applyCatalog } from '../apps/ops/src/catalog/apply-catalog';
import { CampaignOffer, judgeOffers, Lead, ownRankKeys, searchOutcome, testMode } from '../libs/domain/src';
import { CatalogRepository } from '../libs/persistence/src';
import { benchDatabaseUrl, dropBenchDatabase, freshBenchDatabase } from './support/bench-database';
import { ROOT } from './support/app-process';
import { benchCatalog } from './support/bench-catalog';
import { benchLog as log, runBench } from './support/bench-main';

/**
 * `npm run bench:simulate`: how long `ops catalog simulate` takes over
 * SEARCHES stored 50-offer searches (the bench catalog: 46 own offers with
 * three programs each, 4 partner offers). The searches are seeded straight
 * into the schema as the search-orchestrator stores them (their decisions
 * made by libs/domain on 400 lead profiles, a few with caps full or partners
 * that timed out); the proposed catalog narrows ten offers' states, pauses
 * one and raises another's priority. The built CLI runs once, under
 * /usr/bin/time, with --last SEARCHES.
 *
 * Its own database, leadrouter_bench_simulate, dropped before and after.
 */
const SEARCHES = Number(process.env.SIMULATE_SEARCHES ?? 100_000);
const PROFILES = 400;
const SEED_BATCH = 20_000;
const DATABASE_NAME = 'leadrouter_bench_simulate';
const DATABASE_URL = benchDatabaseUrl(DATABASE_NAME);

const STATES = ['TX', 'CA', 'FL', 'NY', 'NV', 'AZ'];
const LEVELS = ['high_school', 'associate', 'bachelor', 'master'];

/** Lead profile i: a state, an age and an education level that vary across the offers' rules. */
function profile(i: number): Lead {
  return {
    personal: {
      first_name: 'Pat',
      last_name: `Bench${'abcdefghij'[i % 10]}`,
      email: `p${i}@example.org`,
      phone: `512555${String(1000 + i).slice(-4)}`,
      date_of_birth: `${1950 + (i % 55)}-04-12`,
    },
    address: { state: STATES[i % STATES.length], zip_code: '75001' },
    education: { education_level: LEVELS[(i >> 1) % LEVELS.length], high_school_graduation_year: '2010' },
  };
}

/** What the search-orchestrator stores for a profile (libs/domain's verdicts and searchOutcome); some profiles meet a full cap, some a partner that timed out. */
function decisionsOf(offers: readonly CampaignOffer[], lead: Lead, i: number, at: Date): Record<string, unknown> {
  // Steps 1 and 2 only: the sale-time refusals (a full cap) are made up below.
  const verdicts = judgeOffers(offers, lead, { kind: 'catalog' }, at, testMode(false)).eligibility;
  const outcome = searchOutcome(offers, verdicts, 'live', ownRankKeys);
  const decisions: Record<string, unknown> = {};
  offers.forEach((o, n) => {
    const x = outcome.outcomes.get(o.offerId)!;
    if (x.kind === 'shown') decisions[o.offerId] = i % 25 === n % 25 ? { shown: false, reason: 'cap_reached' } : { shown: true };
    else if (x.kind === 'school_already_shown') decisions[o.offerId] = { shown: false, reason: 'school_already_shown' };
    else if (x.kind === 'refused')
      decisions[o.offerId] = { shown: false, reason: x.verdict.refusal, ...(x.verdict.detail ? { detail: x.verdict.detail } : {}) };
    else
      decisions[o.offerId] =
        i % 10 === 0 ? { shown: false, reason: 'partner_timeout', detail: 'no answer within 5000 ms' } : { shown: true };
  });
  return decisions;
}

async function main(): Promise<void> {
  const ds = await freshBenchDatabase(DATABASE_NAME);
  const dir = mkdtempSync(join(tmpdir(), 'lr-bench-simulate-'));
  try {
    const { catalog, affiliateId, campaignId } = benchCatalog('http://127.0.0.1:4100');
    const applied = await applyCatalog(ds, catalog);
    if (!applied.ok) throw new Error(`bench catalog refused: ${JSON.stringify(applied.issues)}`);
    const [{ id: apiKeyId }]: Array<{ id: string }> = await ds.query(
      `INSERT INTO api_keys (id, affiliate_id, key_hash, key_prefix, limits) VALUES (gen_random_uuid(), $1, repeat('b', 64), 'lr_bench', '{}') RETURNING id`,
      [affiliateId],
    );
    const offers = await new CatalogRepository(ds).campaignOffers(campaignId);
    const now = new Date();
    const profiles = Array.from({ length: PROFILES }, (_, i) => ({
      i,
      lead: profile(i),
      decisions: decisionsOf(offers, profile(i), i, now),
    }));

    const seedStart = performance.now();
    await ds.query(`CREATE UNLOGGED TABLE bench_profiles (i int PRIMARY KEY, lead jsonb NOT NULL, decisions jsonb NOT NULL)`);
    await ds.query(`INSERT INTO bench_profiles SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(i int, lead jsonb, decisions jsonb)`, [
      JSON.stringify(profiles),
    ]);
    // UUIDv7 ids made of each search's time (its day partition is the id's day), one search every 400 ms back from now.
    for (let from = 1; from <= SEARCHES; from += SEED_BATCH) {
      await ds.query(
        `INSERT INTO searches (id, part_day, affiliate_id, campaign_id, api_key_id, is_test, lead, tracking, consumer_ip, ip_source,
                               created_at, closes_at, processing_done_at, state_version, offer_decisions, person_keys)
         SELECT x.id, lr_id_day(x.id), $3::uuid, $4::uuid, $5::uuid, false, p.lead, '{"ip_address":"73.12.44.10","subid":"bench"}', '73.12.44.10', 'consumer',
                t.at, t.at + interval '45 seconds', t.at + interval '1 second', 2, p.decisions, '[]'
           FROM generate_series($1::int, $2::int) g
           CROSS JOIN LATERAL (SELECT now() - g * interval '400 milliseconds' AS at) t
           CROSS JOIN LATERAL (SELECT (lpad(to_hex((extract(epoch FROM t.at) * 1000)::bigint), 12, '0') || '7' || substr(md5(g::text), 1, 3) || '8'
                                       || substr(md5(g::text), 4, 15))::uuid AS id) x
           JOIN bench_profiles p ON p.i = g % ${PROFILES}`,
        [from, Math.min(SEARCHES, from + SEED_BATCH - 1), affiliateId, campaignId, apiKeyId],
      );
      log(`seeded ${Math.min(SEARCHES, from + SEED_BATCH - 1).toLocaleString('en-US')} searches`);
    }
    await ds.query(`DROP TABLE bench_profiles`);
    await ds.query(`VACUUM ANALYZE searches`);
    log(`seeding took ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

    // The proposal: ten offers narrowed to Texas, one paused, one raised to the top.
    const proposed = structuredClone(catalog) as unknown as { offers: Array<Record<string, unknown>> };
    proposed.offers.slice(0, 10).forEach((o) => (o.eligibility = { states: ['TX'], min_age: 18 }));
    proposed.offers[10].status = 'paused';
    proposed.offers[11].priority = 30;
    const file = join(dir, 'proposed.json');
    writeFileSync(file, JSON.stringify(proposed, null, 2));

    const out = join(dir, 'simulation.json');
    const t0 = performance.now();
    const run = spawnSync(
      '/usr/bin/time',
      ['-v', process.execPath, join(ROOT, 'dist/apps/ops/src/main.js'), 'catalog', 'simulate', file, '--last', String(SEARCHES), '--json'],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', DATABASE_URL, LOG_LEVEL: 'warn' },
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
        timeout: 600_000,
      },
    );
    const wallMs = performance.now() - t0;
    if (run.status !== 0) throw new Error(`catalog simulate failed (${run.status}): ${run.stderr}`);
    writeFileSync(out, run.stdout);
    const sim = JSON.parse(readFileSync(out, 'utf8')) as {
      searches: number;
      searches_changed: number;
      seconds: number;
      rules: Array<{ rule: string; lost: number; gained: number }>;
    };
    const time = (label: string) => new RegExp(`${label}: ([\\d.:]+)`).exec(run.stderr)?.[1];
    const userS = Number(time('User time \\(seconds\\)'));
    const systemS = Number(time('System time \\(seconds\\)'));
    const maxRssKb = Number(time('Maximum resident set size \\(kbytes\\)'));

    const figures = {
      date: new Date().toISOString(),
      machine: { nproc: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version },
      searches: SEARCHES,
      offersPerSearch: offers.length,
      replayed: sim.searches,
      changed: sim.searches_changed,
      wallSeconds: Number((wallMs / 1000).toFixed(1)),
      simulationSeconds: Number(sim.seconds.toFixed(1)),
      cliCpuSeconds: { user: userS, system: systemS, total: Number((userS + systemS).toFixed(2)) },
      cliMaxRssMb: Math.round(maxRssKb / 1024),
      topRules: sim.rules.slice(0, 5),
    };
    process.stdout.write(
      `\ncatalog simulate over ${sim.searches.toLocaleString('en-US')} stored ${offers.length}-offer searches (${sim.searches_changed.toLocaleString('en-US')} change)\n` +
        `  wall: ${figures.wallSeconds} s for the command (${figures.simulationSeconds} s inside it)\n` +
        `  CPU: ${figures.cliCpuSeconds.total} s of the CLI process (user ${userS}, system ${systemS}), max RSS ${figures.cliMaxRssMb} MB\n`,
    );
    if (process.env.SIMULATE_SEARCHES === undefined) {
      mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
      const resultFile = join(ROOT, 'bench', 'results', `simulate-${figures.date.slice(0, 10)}.json`);
      writeFileSync(resultFile, `${JSON.stringify(figures, null, 2)}\n`);
      log(`figures written to ${resultFile}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await ds.destroy();
  }
}

runBench(main, async () => {
  await dropBenchDatabase(DATABASE_NAME).catch(() => undefined);
});
