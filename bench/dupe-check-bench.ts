import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Redis from 'ioredis';
import { Client } from 'pg';
import { hashOf, type Lead, leadDedupeKeys } from '../libs/domain/src';
import { DedupeIndex } from '../libs/persistence/src/repositories/dedupe-index.repository';
import { ROOT, RunningProcess, startApp, startProcess, stopAllApps } from './support/app-process';
import { benchLog as log, runBench } from './support/bench-main';
import { Answer } from './support/http-client';
import { OpenLoopResult, runOpenLoop } from './support/open-loop';
import { renderReport, Row } from './support/report';
import { writeSection } from './support/section';
import { BENCH_KEY_SECRET, BENCH_MASTER_KEYS, BENCH_PERSON_KEY_SECRET } from './support/bench-state';

/**
 * `npm run bench:dupe-check`: the duplicate pre-check's latency at a fixed
 * offered load against a dedupe index of one million keys of accepted leads,
 * beside a bare node:http baseline running the same SQL in the same run.
 *
 * Its own state, so it disturbs neither a running system, the tests nor
 * `bench:search`: database leadrouter_bench_dupe (kept between runs: the seed
 * is reused when it is already there), Redis db 13 under `benchdupe:` (only
 * those keys are deleted), RabbitMQ vhost leadrouter_bench_dupe (deleted after).
 */
const LOAD = { rate: 200, warmupMs: 5_000, durationMs: 20_000 };
const TARGET_P99_MS = 10;
/** 333,334 accepted leads with three keys each (email, phone, name_zip_dob): 1,000,002 rows in dedupe_keys. */
const PERSONS = 333_334;
const SEED_BATCHES = 6;
/** Bumped whenever the seed's shape changes, so an older seed is rebuilt instead of reused. */
const SEED_VERSION = 'v1';
const MAX_SEED_AGE_DAYS = 7;

const DATABASE_NAME = 'leadrouter_bench_dupe';
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${DATABASE_NAME}`;
const REDIS_URL = 'redis://127.0.0.1:6379/13';
const REDIS_PREFIX = 'benchdupe:';
const VHOST = 'leadrouter_bench_dupe';
const env: Record<string, string> = {
  NODE_ENV: 'production',
  PERSON_KEY_SECRET: BENCH_PERSON_KEY_SECRET,
  DATA_MASTER_KEYS: BENCH_MASTER_KEYS,
  DATABASE_URL,
  REDIS_URL,
  REDIS_KEY_PREFIX: REDIS_PREFIX,
  AMQP_URL: `amqp://guest:guest@127.0.0.1:5672/${VHOST}`,
  AMQP_PREFIX: 'benchdupe',
  LOG_LEVEL: 'warn',
};

/**
 * Fixed ids, so a kept database's seed matches this run's catalog. Affiliate A
 * (the caller) has a campaign with offers 0-9, affiliate B one with offers
 * 10-19: account-wide, B's sales must not count for A. Every window is 30
 * days; sales are spread over the last 60, so half of them are inside.
 */
const OFFERS = 20;
const A_OFFERS = 10;
const WINDOW_DAYS = 30;
const uuid = (group: string, n: number) => `${group}-0000-4000-8000-${String(n).padStart(12, '0')}`;
const ids = {
  affA: uuid('b0000000', 1),
  affB: uuid('b0000000', 2),
  school: uuid('b0000000', 3),
  campaignA: uuid('b0000000', 4),
  campaignB: uuid('b0000000', 5),
  seedKeyA: uuid('b0000000', 6),
  seedKeyB: uuid('b0000000', 7),
  offers: Array.from({ length: OFFERS }, (_, i) => uuid('b1000000', i)),
};
/** Person i's sale: its offer and how many days ago it was accepted (the SQL seed computes the same). */
const offerOf = (i: number) => i % OFFERS;
const daysAgoOf = (i: number) => (i * 7) % 60;

/**
 * Person i, in the normalized form the seed hashes in SQL: email
 * person<i>@example.com, phone 5000000000+i, last name "n" + i's digits as
 * letters a-j, ZIP i mod 100000, date of birth 1960-01-01 + (i mod 15000) days.
 */
function person(i: number) {
  const dob = new Date(Date.UTC(1960, 0, 1) + (i % 15_000) * 86_400_000).toISOString().slice(0, 10);
  return {
    email: `person${i}@example.com`,
    phone: String(5_000_000_000 + i),
    lastName: `n${String(i).replace(/\d/g, (d) => 'abcdefghij'[Number(d)])}`,
    zip: String(i % 100_000).padStart(5, '0'),
    dob,
  };
}

function ops(...args: string[]): string {
  const main = join(ROOT, 'dist', 'apps', 'ops', 'src', 'main.js');
  return execFileSync(process.execPath, [main, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

const rabbitmqctl = (...args: string[]) => execFileSync('rabbitmqctl', ['-q', ...args], { encoding: 'utf8', timeout: 120_000 });
const vhostExists = () =>
  rabbitmqctl('list_vhosts')
    .split('\n')
    .some((l) => l.trim() === VHOST);

function catalog() {
  return {
    affiliates: [
      { id: ids.affA, name: 'Bench dupe A', status: 'active', dupe_check: true },
      { id: ids.affB, name: 'Bench dupe B', status: 'active', dupe_check: true },
    ],
    schools: [{ id: ids.school, name: 'Bench Dupe College', logo_url: null }],
    partners: [],
    offers: ids.offers.map((id, i) => ({
      id,
      name: `Bench dupe offer ${i}`,
      school_id: ids.school,
      source: 'own',
      offer_type: 'shared',
      status: 'active',
      price: 30,
      tcpa_text: 'I agree to be contacted.',
      duplicate_window_days: WINDOW_DAYS,
      programs: [{ value: 'gen', label: 'General Studies' }],
      delivery: { adapter: 'sandbox', url: 'http://127.0.0.1:9/schools/bench/leads' },
    })),
    campaigns: [
      {
        id: ids.campaignA,
        affiliate_id: ids.affA,
        name: 'A',
        status: 'active',
        offers: ids.offers.slice(0, A_OFFERS).map((offer_id) => ({ offer_id, payout: 20 })),
      },
      {
        id: ids.campaignB,
        affiliate_id: ids.affB,
        name: 'B',
        status: 'active',
        offers: ids.offers.slice(A_OFFERS).map((offer_id) => ({ offer_id, payout: 20 })),
      },
    ],
  };
}

/** sha256 hex of a SQL text expression, as libs/domain hashes (UTF-8 bytes, lower-case hex). */
const h = (expr: string) => `encode(sha256(convert_to(${expr}, 'UTF8')), 'hex')`;

/**
 * Persons lo..hi as accepted live leads and their three dedupe_keys rows, all
 * generated in PostgreSQL: no row crosses the wire. $1 lo, $2 hi, $3 offer
 * ids, $4 the seed's "now".
 */
const SEED_PERSONS = `
  WITH p AS (
    SELECT i,
           md5('bench-dupe-lead-' || i)::uuid AS lead_id,
           ($3::uuid[])[1 + i % ${OFFERS}] AS offer_id,
           CASE WHEN i % ${OFFERS} < ${A_OFFERS} THEN '${ids.affA}'::uuid ELSE '${ids.affB}'::uuid END AS affiliate_id,
           CASE WHEN i % ${OFFERS} < ${A_OFFERS} THEN '${ids.campaignA}'::uuid ELSE '${ids.campaignB}'::uuid END AS campaign_id,
           CASE WHEN i % ${OFFERS} < ${A_OFFERS} THEN '${ids.seedKeyA}'::uuid ELSE '${ids.seedKeyB}'::uuid END AS api_key_id,
           $4::timestamptz - make_interval(days => (i * 7) % 60) AS accepted_at,
           ${h(`'person' || i || '@example.com'`)} AS email,
           ${h(`(5000000000 + i)::text`)} AS phone,
           ${h(`'n' || translate(i::text, '0123456789', 'abcdefghij')`)} AS last_name,
           ${h(`lpad((i % 100000)::text, 5, '0')`)} AS zip,
           ${h(`to_char(date '1960-01-01' + (i % 15000), 'YYYY-MM-DD')`)} AS dob
      FROM generate_series($1::int, $2::int) AS i
  ), l AS (
    INSERT INTO leads (id, kind, affiliate_id, campaign_id, offer_id, api_key_id, lead, consumer_ip, status, code, created_at, decided_at, lead_group_id)
    SELECT lead_id, 'direct_post', affiliate_id, campaign_id, offer_id, api_key_id, '{}', '73.12.44.10', 'accepted', 'ACCEPTED', accepted_at, accepted_at, lead_id
      FROM p
  )
  INSERT INTO dedupe_keys (lead_id, key_type, key_hash, offer_id, school_id, affiliate_id, accepted_at)
  SELECT p.lead_id, k.key_type, k.key_hash, p.offer_id, '${ids.school}'::uuid, p.affiliate_id, p.accepted_at
    FROM p CROSS JOIN LATERAL (VALUES
      ('email', p.email),
      ('phone', p.phone),
      ('name_zip_dob', ${h(`p.last_name || '|' || p.zip || '|' || p.dob`)})
    ) AS k(key_type, key_hash)`;

/**
 * One million dedupe_keys rows of accepted leads, unless the database already
 * holds this seed. Leads and rows go in one statement per batch (a data-
 * modifying CTE: the leads exist before their keys are checked against them).
 */
async function ensureSeed(db: Client): Promise<{ reused: boolean; ms: number; rows: number; ageDays: number }> {
  const started = performance.now();
  await db.query(
    'CREATE TABLE IF NOT EXISTS bench_dupe_seed (version text PRIMARY KEY, persons int NOT NULL, rows int NOT NULL, seeded_at timestamptz NOT NULL)',
  );
  // Sales are dated relative to the seed, so an old seed has fewer rows inside the windows: reused for a week at most.
  const done: Array<{ rows: number; age_days: number }> = (
    await db.query(
      `SELECT rows, extract(epoch FROM now() - seeded_at) / 86400 AS age_days FROM bench_dupe_seed
        WHERE version = $1 AND persons = $2 AND seeded_at > now() - interval '${MAX_SEED_AGE_DAYS} days'`,
      [SEED_VERSION, PERSONS],
    )
  ).rows;
  if (done.length > 0)
    return { reused: true, ms: Math.round(performance.now() - started), rows: done[0].rows, ageDays: Number(done[0].age_days) };

  log(`seeding ${PERSONS} accepted leads with 3 dedupe keys each`);
  await db.query('TRUNCATE dedupe_keys, leads CASCADE');
  await db.query('DELETE FROM bench_dupe_seed');
  await db.query(
    `INSERT INTO api_keys (id, affiliate_id, key_hash, key_prefix)
     VALUES ($1, $3, ${h(`'bench-dupe-seed-a'`)}, 'seed'), ($2, $4, ${h(`'bench-dupe-seed-b'`)}, 'seed')
     ON CONFLICT (id) DO NOTHING`,
    [ids.seedKeyA, ids.seedKeyB, ids.affA, ids.affB],
  );
  const now = new Date();
  const size = Math.ceil(PERSONS / SEED_BATCHES);
  for (let lo = 0; lo < PERSONS; lo += size) {
    const hi = Math.min(PERSONS, lo + size) - 1;
    const t = performance.now();
    await db.query(SEED_PERSONS, [lo, hi, ids.offers, now]);
    log(`  persons ${lo}..${hi} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  await db.query('VACUUM ANALYZE leads');
  await db.query('VACUUM ANALYZE dedupe_keys');
  const rows = Number((await db.query('SELECT count(*) AS n FROM dedupe_keys')).rows[0].n);
  await db.query('INSERT INTO bench_dupe_seed (version, persons, rows, seeded_at) VALUES ($1, $2, $3, $4)', [
    SEED_VERSION,
    PERSONS,
    rows,
    now,
  ]);
  return { reused: false, ms: Math.round(performance.now() - started), rows, ageDays: (Date.now() - now.getTime()) / 86_400_000 };
}

/** The SQL seed and the domain must hash a person alike, or every "hit" would miss: checked on a few persons. */
async function checkSeedMatchesDomain(db: Client): Promise<void> {
  for (const i of [0, 7, 123_456, PERSONS - 1]) {
    const p = person(i);
    const lead: Lead = {
      personal: { email: p.email, phone: p.phone, last_name: p.lastName, date_of_birth: p.dob },
      address: { zip_code: p.zip },
    };
    const stored: Array<{ key_type: string; key_hash: string }> = (
      await db.query(`SELECT key_type, key_hash FROM dedupe_keys WHERE lead_id = md5('bench-dupe-lead-' || $1::int)::uuid`, [i])
    ).rows;
    const expected = leadDedupeKeys(BENCH_KEY_SECRET, lead)
      .map((k) => `${k.type}:${k.hash}`)
      .sort();
    const actual = stored.map((r) => `${r.key_type}:${r.key_hash}`).sort();
    if (JSON.stringify(actual) !== JSON.stringify(expected))
      throw new Error(`seed person ${i} hashes differ from libs/domain: ${actual.join(', ')}`);
  }
}

/** A small deterministic generator (mulberry32), so every run offers the same mix. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Mix {
  bodies: string[];
  /** What each request must answer, from the seed's rules. */
  expected: boolean[];
}

/**
 * The requests, by index: half expected hits (a seeded person sold on one of
 * A's offers within the window), half misses (a person never seeded, one sold
 * outside the window, or one sold only on B's offers); raw in four spellings or
 * hashed; half with `offer_id` (a hit's own offer; one of A's for a miss).
 */
function requestMix(count: number, seed: number, seedAgeDays: number): Mix {
  const rnd = random(seed);
  const pick = (ok: (i: number) => boolean) => {
    for (;;) {
      const i = Math.floor(rnd() * PERSONS);
      if (ok(i)) return i;
    }
  };
  const isA = (i: number) => offerOf(i) < A_OFFERS;
  // A row is inside its window while its age (days before the seed, plus the seed's own age) is under the window;
  // a tenth of a day's margin either side keeps a run (about a minute) clear of the edge.
  const inside = (i: number) => daysAgoOf(i) + seedAgeDays < WINDOW_DAYS - 0.1;
  const outside = (i: number) => daysAgoOf(i) + seedAgeDays > WINDOW_DAYS + 0.1;
  const bodies: string[] = [];
  const expected: boolean[] = [];
  for (let n = 0; n < count; n++) {
    const hit = rnd() < 0.5;
    const missKind = Math.floor(rnd() * 3);
    const i = hit
      ? pick((j) => isA(j) && inside(j))
      : missKind === 0
        ? PERSONS + Math.floor(rnd() * 1e7)
        : missKind === 1
          ? pick((j) => isA(j) && outside(j))
          : pick((j) => !isA(j));
    const p = person(i);
    const withOffer = rnd() < 0.5;
    const offerId = withOffer ? ids.offers[hit ? offerOf(i) : Math.floor(rnd() * A_OFFERS)] : undefined;
    const form = Math.floor(rnd() * 5);
    let body: Record<string, unknown>;
    if (form === 0)
      body = {
        email: ` ${p.email.toUpperCase()} `,
        phone: `+1 (${p.phone.slice(0, 3)}) ${p.phone.slice(3, 6)}-${p.phone.slice(6)}`,
        first_name: 'Pat',
        last_name: p.lastName.toUpperCase(),
        zip: `${p.zip}-1234`,
        dob: `${p.dob.slice(5, 7)}/${p.dob.slice(8)}/${p.dob.slice(0, 4)}`,
      };
    else if (form === 1) body = { email: p.email };
    else if (form === 2) body = { phone: `1-${p.phone}` };
    else if (form === 3)
      body = {
        hashed: {
          email: hashOf('email', p.email),
          phone: hashOf('phone', p.phone),
          last_name: hashOf('last_name', p.lastName),
          zip: hashOf('zip', p.zip),
          dob: hashOf('dob', p.dob),
        },
      };
    else body = { last_name: p.lastName, zip: p.zip, hashed: { dob: hashOf('dob', p.dob) } };
    if (offerId) body.offer_id = offerId;
    bodies.push(JSON.stringify(body));
    expected.push(hit);
  }
  return { bodies, expected };
}

interface Run extends OpenLoopResult {
  trueAnswers: number;
  /** Answers that contradict the seed (a hit answered false or a miss true); must be 0. */
  wrong: number;
}

/** Open-loop load at LOAD.rate; counts true answers and checks each against what the seed says. */
async function load(baseUrl: string, path: string, headers: Record<string, string>, mix: Mix): Promise<Run> {
  let trueAnswers = 0;
  let wrong = 0;
  const result = await runOpenLoop({
    baseUrl,
    ...LOAD,
    call: (i) => ({ method: 'POST', path, headers, body: mix.bodies[i % mix.bodies.length] }),
    onAnswer: (a: Answer, i: number) => {
      const got = (JSON.parse(a.body.toString('utf8')) as { duplicate_likely: boolean }).duplicate_likely;
      if (got) trueAnswers++;
      if (got !== mix.expected[i % mix.expected.length]) wrong++;
    },
  });
  return { ...result, trueAnswers, wrong };
}

/** The plans of both statements on the seeded million rows (a hit and a miss), with actual times. */
async function plans(db: Client): Promise<Record<string, string[]>> {
  const hitPerson = person(Array.from({ length: 100 }, (_, k) => k).find((k) => offerOf(k) < A_OFFERS && daysAgoOf(k) < WINDOW_DAYS)!);
  const keysOf = (p: ReturnType<typeof person>) =>
    leadDedupeKeys(BENCH_KEY_SECRET, {
      personal: { email: p.email, phone: p.phone, last_name: p.lastName, date_of_birth: p.dob },
      address: { zip_code: p.zip },
    });
  const miss = keysOf(person(PERSONS + 42));
  const hit = keysOf(hitPerson);
  const out: Record<string, string[]> = {};
  const explain = async (name: string, { sql, params }: { sql: string; params: unknown[] }) => {
    const rows: Array<{ 'QUERY PLAN': string }> = (await db.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, params)).rows;
    out[name] = rows.map((r) => r['QUERY PLAN']);
  };
  await explain('offer-scoped miss', DedupeIndex.lastSalesStatement(miss, { offerIds: [ids.offers[0]] }));
  await explain('account-wide miss', DedupeIndex.lastSalesStatement(miss, { affiliateId: ids.affA }));
  await explain('account-wide hit', DedupeIndex.lastSalesStatement(hit, { affiliateId: ids.affA }));
  return out;
}

async function main(): Promise<void> {
  const load0 = loadavg();
  log(`state: database ${DATABASE_NAME}, Redis db 13 prefix ${REDIS_PREFIX}, vhost ${VHOST}`);
  ops('db', 'migrate'); // creates the database if missing; applies any new migration to a kept one
  if (vhostExists()) rabbitmqctl('delete_vhost', VHOST);
  rabbitmqctl('add_vhost', VHOST);
  rabbitmqctl('set_permissions', '-p', VHOST, 'guest', '.*', '.*', '.*');
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  for (let cursor = '0'; ;) {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${REDIS_PREFIX}*`, 'COUNT', 1000);
    if (found.length > 0) await redis.del(...found);
    cursor = next;
    if (cursor === '0') break;
  }
  redis.disconnect();

  const dir = mkdtempSync(join(tmpdir(), 'lr-bench-dupe-'));
  writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog()));
  ops('catalog', 'apply', join(dir, 'catalog.json'));
  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  const seed = await ensureSeed(db);
  log(
    seed.reused
      ? `reusing the seed (${seed.rows} dedupe_keys rows)`
      : `seeded ${seed.rows} dedupe_keys rows in ${(seed.ms / 1000).toFixed(1)} s`,
  );
  await checkSeedMatchesDomain(db);
  const queryPlans = await plans(db);

  const { key } = JSON.parse(ops('keys', 'issue', '--affiliate', ids.affA, '--limit', 'dupe-check=1000000/100000')) as { key: string };
  const gateway = await startApp('gateway', env);
  const baseline = await startProcess({
    name: 'dupe-check-baseline',
    entry: join(__dirname, 'support', 'dupe-check-baseline.js'),
    env: { ...env, BENCH_AFFILIATE_ID: ids.affA },
    portVar: 'PORT',
    probePath: '/health/ready',
    probeLabel: 'ready',
  });

  const total = Math.round(((LOAD.warmupMs + LOAD.durationMs) / 1000) * LOAD.rate);
  const mix = requestMix(total, 20261121, seed.ageDays);

  log(`gateway: ${LOAD.rate}/s open loop, ${LOAD.warmupMs / 1000} s warm-up + ${LOAD.durationMs / 1000} s`);
  const system = await load(gateway.url, '/api/v1/engine/dupe-check', { authorization: `Bearer ${key}` }, mix);
  log('baseline: bare node:http + the same SQL, same load and requests');
  const bare = await load(baseline.url, '/dupe-check', {}, mix);
  await stopProcesses([baseline, gateway]);
  await db.end();
  const load1 = loadavg();

  const rows: Row[] = [
    { metric: `p50 ms @ ${LOAD.rate}/s`, system: system.p50, baseline: bare.p50 },
    { metric: `p90 ms @ ${LOAD.rate}/s`, system: system.p90, baseline: bare.p90 },
    { metric: `p99 ms @ ${LOAD.rate}/s`, system: system.p99, baseline: bare.p99 },
    { metric: `max ms @ ${LOAD.rate}/s`, system: system.max, baseline: bare.max },
    { metric: 'achieved /s', system: system.achievedRate, baseline: bare.achievedRate },
    { metric: 'requests measured', system: system.count, baseline: bare.count },
    { metric: 'errors (non-200)', system: system.errors, baseline: bare.errors },
    { metric: 'answers true', system: system.trueAnswers, baseline: bare.trueAnswers },
    { metric: 'answers contradicting the seed', system: system.wrong, baseline: bare.wrong },
  ];
  const targets = [
    {
      name: `p99 < ${TARGET_P99_MS} ms at ${LOAD.rate} checks/s over ${(seed.rows / 1e6).toFixed(1)} M dedupe keys`,
      met: system.p99 < TARGET_P99_MS && system.errors === 0 && system.wrong === 0,
      detail: `p99 ${system.p99} ms, ${system.errors} errors, ${system.wrong} wrong answers`,
    },
  ];
  const machine = {
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
  const loadNote = `load average before ${load0.map((l) => l.toFixed(2)).join(' ')}, after ${load1.map((l) => l.toFixed(2)).join(' ')}`;
  process.stdout.write(
    `\nDuplicate pre-check — ${machine.nproc} cores (${machine.cpu}), node ${machine.node}; ${loadNote}\n\n${renderReport(rows, targets)}\n`,
  );

  const date = new Date().toISOString().slice(0, 10);
  const file = join(ROOT, 'bench', 'results', `dupe-check-${date}.json`);
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  const figures = {
    date: new Date().toISOString(),
    machine,
    loadAverage: { before: load0, after: load1 },
    load: LOAD,
    seed: { ...seed, persons: PERSONS, offers: OFFERS, callerOffers: A_OFFERS, windowDays: WINDOW_DAYS },
    mix: { requests: total, expectedTrue: mix.expected.filter(Boolean).length },
    system,
    baseline: bare,
    ratioP99: Math.round((system.p99 / bare.p99) * 100) / 100,
    plans: queryPlans,
    targets,
  };
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  log(`figures written to ${file}`);
  writeSection({
    name: 'dupe-check',
    title: 'Duplicate pre-check (1 M dedupe keys)',
    rows,
    targets,
    figures: { ...figures, plans: undefined },
  });
}

async function stopProcesses(list: RunningProcess[]): Promise<void> {
  await Promise.all(list.map((p) => p.stop(5_000)));
}

/** Stops every process the bench started and deletes its vhost. The database stays for the next run. */
async function cleanUp(): Promise<void> {
  await stopAllApps();
  try {
    if (vhostExists()) rabbitmqctl('delete_vhost', VHOST);
  } catch {
    /* RabbitMQ unreachable: nothing more to do */
  }
}

runBench(main, cleanUp);
