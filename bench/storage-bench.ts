import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import type { ResultEntry } from '../libs/contracts/src';
import { createDataSource } from '../libs/persistence/src/data-source';
import { addDays, daySuffix, PARTITIONED_TABLES } from '../libs/persistence/src/partitions/partition-days';
import { PartitionStore } from '../libs/persistence/src/repositories/partitions.repository';
import { DEFAULT_SUBMIT_EVERY, generateHistory, HistoryResult, historyPerson } from './generate-history';
import { ROOT, RunningApp, startApp, stopAllApps } from './support/app-process';
import { startAutovacuumStandIn, stopAutovacuumStandIn } from './support/autovacuum';
import { benchCatalog, benchLead, benchSearchBody } from './support/bench-catalog';
import { benchLog as log, runBench } from './support/bench-main';
import { appEnv, BENCH_STATE, benchEnv, drainQueues, ops, removeBenchVhost, resetBenchState } from './support/bench-state';
import { Answer } from './support/http-client';
import { OpenLoopResult, runOpenLoop } from './support/open-loop';
import { byProcessLine, groupMs, withMachineCpuPerUnit } from './support/process-cpu';
import { RedisFootprint, redisFootprint, sampleRedisMemory } from './support/redis-footprint';
import type { Row, Target } from './support/report';
import { writeSection } from './support/section';
import { answerJson, doneSearchAnswers, SearchAnswer, searchLoad } from './support/search-drive';
import { growthPer, growthTable, tableSizes } from './support/table-sizes';

/**
 * `npm run bench:storage`: what the search storage costs and whether its cost
 * stays flat as history piles up (bench/results/performance-history.md, "Storage"), in one run
 * on the bench state:
 *  a. on an empty database, SIZE_SEARCHES searches of the 50-offer campaign at a
 *     moderate rate, waited for until done and closed: PostgreSQL bytes per
 *     search (the growth of every table, partitions summed, after a
 *     CHECKPOINT, over the searches), by table; Redis bytes per search state
 *     while open and after closing;
 *  b. search p99 at 50/s, duplicate pre-check p99 at 200/s and submit p99 at
 *     20/s (open loop), with the machine's CPU per unit by process;
 *  c. STORAGE_HISTORY historical searches (default 1,000,000, over
 *     STORAGE_HISTORY_DAYS = 30 days; bench/generate-history.ts), the time it
 *     took and the database's size;
 *  d. the three latencies again, each against its empty-database figure;
 *  e. the retention's drop of one whole generated day (its submitted searches
 *     kept first, as the retention run does), timed.
 * Only the full run (the default history) writes bench/results/storage-<date>.json;
 * a smaller history prints its figures and writes nothing.
 */
const FULL_HISTORY = 1_000_000;
const FULL_HISTORY_DAYS = 30;
const HISTORY = Number(process.env.STORAGE_HISTORY ?? FULL_HISTORY);
const HISTORY_DAYS = Number(process.env.STORAGE_HISTORY_DAYS ?? FULL_HISTORY_DAYS);
const FULL = HISTORY === FULL_HISTORY && HISTORY_DAYS === FULL_HISTORY_DAYS;

/** a. The searches measured on the empty database: SIZE_LOAD.rate a second (open loop), every one measured. */
const SIZE_SEARCHES = 400;
const SIZE_LOAD = { rate: 20, warmupMs: 0, durationMs: (SIZE_SEARCHES / 20) * 1000 };
/** b, d. As bench:search: a warm-up at 20/s (unmeasured), then 50/s. */
const SEARCH_WARM_UP = { rate: 20, warmupMs: 15_000, durationMs: 0 };
const SEARCH = { rate: 50, warmupMs: 5_000, durationMs: 30_000 };
/** As bench:dupe-check: 200/s. */
const DUPE = { rate: 200, warmupMs: 5_000, durationMs: 20_000 };
/** As bench:submit at its lowest rate: a warm-up at 20/s (unmeasured), then 20/s. */
const SUBMIT_WARM_UP = { rate: 20, ms: 10_000 };
const SUBMIT = { rate: 20, warmupMs: 3_000, durationMs: 15_000 };
/** Sales of one prepared search (under max_accepted_submissions, 3), each on another own offer. */
const SALES_PER_SEARCH = 2;
const PREP_CONCURRENCY = 8;
const DRAIN_MAX_MS = 120_000;

const TARGET_BYTES_PER_SEARCH = 8 * 1024;
/** With history, each p99 within 20 % of the empty database's. */
const TARGET_RATIO = 1.2;
const TARGET_DROP_MS = 1_000;

const APPS = ['gateway', 'checks', 'partner-adapter', 'search-orchestrator', 'delivery'] as const;

const sentOf = (load: { rate: number; warmupMs: number; durationMs: number }) =>
  Math.round(((load.warmupMs + load.durationMs) / 1000) * load.rate);
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
const kb = (bytes: number) => Math.round(bytes / 102.4) / 10;

/** One open-loop phase with the machine's CPU per request sent, by process (over the phase and the drain after it). */
interface Measured<T extends OpenLoopResult = OpenLoopResult> {
  run: T;
  cpuByProcess: Array<{ group: string; ms: number }>;
  cpuMachineMs: number;
  cpuAppsMs: number;
  /** CPU ms per request of node processes the bench did not start (another job on the machine). */
  foreignCpuMs: number;
}

/** The three latencies of one round (on the empty database, then with history). */
interface Round {
  search: Measured;
  submit: Measured & { codes: Record<string, number> };
  dupe: Measured & { trueAnswers: number };
}

/** A result's submit fields: its first program and the first option of every question (the bench lead qualifies for all). */
function answersFor(entry: ResultEntry): Record<string, string> {
  const answers: Record<string, string> = {};
  if (entry.programs[0]) answers.program_id = entry.programs[0].value;
  for (const f of entry.form_fields) answers[f.name] = f.options?.[0]?.value ?? '1';
  return answers;
}

/** Whether an answer is an ACCEPTED decision; counts every answer's code (or HTTP status when it has none) in `codes`. */
function acceptedInto(codes: Map<string, number>): (a: Answer) => boolean {
  return (a) => {
    let code = `HTTP ${a.status}`;
    try {
      code = (JSON.parse(a.body.toString('utf8')) as { code?: string }).code ?? code;
    } catch {
      /* not JSON: counted under its HTTP status */
    }
    codes.set(code, (codes.get(code) ?? 0) + 1);
    return a.status === 200 && code === 'ACCEPTED';
  };
}

/** A small deterministic generator (mulberry32), so both rounds offer the same pre-checks. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The pre-checks, the same in both rounds: half ask about a history person
 * who was sold (a hit once the history is there: their sale is within the
 * offers' 30-day window unless it is among the history's oldest), half about
 * a person never seen; account-wide (no offer_id), with the fields a lead has.
 */
function dupeBodies(count: number, lead: { zip: string; dob: string }): string[] {
  const rnd = random(20261126);
  const sold = Math.max(1, Math.floor((HISTORY - 1) / DEFAULT_SUBMIT_EVERY) + 1);
  return Array.from({ length: count }, (_, n) => {
    const p = rnd() < 0.5 ? historyPerson(DEFAULT_SUBMIT_EVERY * Math.floor(rnd() * sold)) : historyPerson(100_000_000 + n);
    return JSON.stringify({ email: p.email, phone: p.phone, last_name: p.lastName, zip: lead.zip, dob: lead.dob });
  });
}

async function dbQuery<T extends object>(sql: string, params: unknown[] = []): Promise<T[]> {
  const pg = new Client({ connectionString: BENCH_STATE.databaseUrl });
  await pg.connect();
  try {
    return (await pg.query<T>(sql, params)).rows;
  } finally {
    await pg.end();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  if (!Number.isInteger(HISTORY) || HISTORY < 1)
    throw new Error(`STORAGE_HISTORY must be a positive integer, got ${process.env.STORAGE_HISTORY}`);
  if (!Number.isInteger(HISTORY_DAYS) || HISTORY_DAYS < 2)
    throw new Error(`STORAGE_HISTORY_DAYS must be an integer of at least 2 (a whole day to drop), got ${process.env.STORAGE_HISTORY_DAYS}`);
  const run = randomBytes(3).toString('hex');
  log('resetting the bench state (database leadrouter_bench, Redis db 13, vhost leadrouter_bench)');
  await resetBenchState();
  startAutovacuumStandIn(BENCH_STATE.databaseUrl, log);

  const sandbox = await startApp('sandbox', benchEnv, 'live');
  const { catalog, affiliateId, campaignId } = benchCatalog(sandbox.url);
  for (const a of catalog.affiliates) a.dupe_check = true;
  const ownOffers = new Set<string>(catalog.offers.filter((o) => o.source === 'own').map((o) => o.id));
  const dir = mkdtempSync(join(tmpdir(), 'lr-bench-storage-'));
  writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog));
  ops('catalog', 'apply', join(dir, 'catalog.json'));
  const { key } = JSON.parse(
    ops(
      'keys',
      'issue',
      '--affiliate',
      affiliateId,
      '--limit',
      'search=1000000/100000',
      '--limit',
      'results=1000000/1000000',
      '--limit',
      'leads=1000000/100000',
      '--limit',
      'dupe-check=1000000/100000',
    ),
  ) as { key: string };
  const auth = { authorization: `Bearer ${key}` };
  const body = (prefix: string) => (i: number) => benchSearchBody(campaignId, affiliateId, `${run}${prefix}`, i);

  log(`starting ${APPS.join(', ')}`);
  const env = appEnv();
  const workers = await Promise.all(
    (['checks', 'partner-adapter', 'search-orchestrator', 'delivery'] as const).map((app) => startApp(app, env)),
  );
  const gateway = await startApp('gateway', env);
  const apps: RunningApp[] = [...workers, gateway];
  const named = new Map<number, string>([
    [process.pid, 'bench driver'],
    [sandbox.child.pid!, 'sandbox'],
    ...apps.map((a): [number, string] => [a.child.pid!, a.app]),
  ]);
  const drain = () => drainQueues(DRAIN_MAX_MS, log);

  /** An open-loop phase and the drain after it, with the machine's CPU per request sent. */
  const measured = async <T extends OpenLoopResult>(label: string, sent: number, work: () => Promise<T>): Promise<Measured<T>> => {
    const { result, msPerUnit } = await withMachineCpuPerUnit(
      named,
      async () => {
        const r = await work();
        await drain();
        return r;
      },
      () => sent,
    );
    log(
      `${label}: p50 ${result.p50} ms, p99 ${result.p99} ms, ${result.errors} errors; machine CPU ms per request by process: ${byProcessLine(msPerUnit)}`,
    );
    // The bench names every node process of its own, so a `node` or `npm …` group is someone else's work on the machine.
    const foreignCpuMs = groupMs(
      msPerUnit,
      msPerUnit.map((g) => g.group).filter((g) => /^(node|npm|npx)\b/.test(g)),
    );
    if (foreignCpuMs >= 0.5)
      log(
        `${label}: node processes the bench did not start used ${foreignCpuMs} ms per request: the machine was not quiet, so this phase's figures are not to be trusted`,
      );
    return { run: result, cpuByProcess: msPerUnit, cpuMachineMs: msPerUnit[0].ms, cpuAppsMs: groupMs(msPerUnit, APPS), foreignCpuMs };
  };

  // a. Bytes per search on the empty database.
  const size = await sizePhase();
  if (process.env.STORAGE_PHASES === 'bytes') {
    // A partial run (comparing storage shapes quickly): printed, not written.
    process.stdout.write(
      `\nPostgreSQL bytes per search: ${size.bytesPerSearch} (row ${size.rowBytes}); Redis per open search ${size.redisOpen.bytesPerSearch}, per closed ${size.redisClosed.bytesPerSearch}; Redis peak ${size.redisPeak.mbPer1000Open} MB per 1,000 open searches\n`,
    );
    return;
  }

  // b. Latencies on the (nearly) empty database.
  const person = benchLead(run, 0);
  const lead = { zip: person.address.zip_code, dob: person.personal.date_of_birth };
  const dupeRequests = dupeBodies(sentOf(DUPE), lead);
  const empty = await latencyRound('empty', 'e');

  // c. History.
  log(`generating ${HISTORY.toLocaleString('en-US')} historical searches over ${HISTORY_DAYS} days`);
  const history: HistoryResult = await generateHistory(BENCH_STATE.databaseUrl, { searches: HISTORY, days: HISTORY_DAYS }, log);
  log(
    `history: ${history.searches} searches (${history.submits} submits) in ${(history.ms.generate / 1000).toFixed(1)} s, ANALYZE ${(history.ms.analyze / 1000).toFixed(1)} s, ` +
      `CHECKPOINT ${(history.ms.checkpoint / 1000).toFixed(1)} s; database ${mb(history.databaseBytes.before)} MB -> ${mb(history.databaseBytes.after)} MB`,
  );

  // d. Latencies with history.
  const withHistory = await latencyRound('with history', 'h');

  // e. The retention's drop of one whole generated day.
  const retention = await dropDay(addDays(history.firstDay, 1));

  // The report: the latencies with history beside the empty database's (ratio = with history / empty).
  const latencyRows = (r: Round): Array<[string, number]> => [
    [`search p50 ms @ ${SEARCH.rate}/s`, r.search.run.p50],
    [`search p99 ms @ ${SEARCH.rate}/s`, r.search.run.p99],
    [`search errors @ ${SEARCH.rate}/s`, r.search.run.errors],
    [`CPU ms per search @ ${SEARCH.rate}/s (machine)`, r.search.cpuMachineMs],
    [`CPU ms per search @ ${SEARCH.rate}/s (apps)`, r.search.cpuAppsMs],
    [`submit p50 ms @ ${SUBMIT.rate}/s`, r.submit.run.p50],
    [`submit p99 ms @ ${SUBMIT.rate}/s`, r.submit.run.p99],
    [`submits not ACCEPTED @ ${SUBMIT.rate}/s`, r.submit.run.errors],
    [`CPU ms per submit @ ${SUBMIT.rate}/s (machine)`, r.submit.cpuMachineMs],
    [`CPU ms per submit @ ${SUBMIT.rate}/s (apps)`, r.submit.cpuAppsMs],
    [`dupe-check p50 ms @ ${DUPE.rate}/s`, r.dupe.run.p50],
    [`dupe-check p99 ms @ ${DUPE.rate}/s`, r.dupe.run.p99],
    [`dupe-check errors @ ${DUPE.rate}/s`, r.dupe.run.errors],
    [`dupe-check answers true @ ${DUPE.rate}/s`, r.dupe.trueAnswers],
    [`CPU ms per dupe-check @ ${DUPE.rate}/s (machine)`, r.dupe.cpuMachineMs],
    [`CPU ms per dupe-check @ ${DUPE.rate}/s (apps)`, r.dupe.cpuAppsMs],
  ];
  const withRows = latencyRows(withHistory);
  // Figures measured once: the empty database's storage, the history, the retention's drop.
  const figureRows: Row[] = [
    { metric: `PostgreSQL bytes per search (empty database, ${size.searches} searches)`, system: size.bytesPerSearch },
    { metric: `a search's row as stored (pg_column_size), bytes`, system: size.rowBytes },
    { metric: 'Redis bytes per open search', system: size.redisOpen.bytesPerSearch },
    { metric: 'Redis bytes per closed search', system: size.redisClosed.bytesPerSearch },
    { metric: 'Redis peak MB per 1,000 open searches (used_memory)', system: size.redisPeak.mbPer1000Open },
    { metric: 'history searches', system: history.searches },
    { metric: 'history submits', system: history.submits },
    { metric: 'history generated, s', system: Math.round(history.ms.generate / 100) / 10 },
    { metric: 'database MB before history', system: mb(history.databaseBytes.before) },
    { metric: 'database MB with history', system: mb(history.databaseBytes.after) },
    { metric: `retention: keep a day's submitted searches, ms`, system: retention.keepMs },
    { metric: `retention: drop a day's partitions, ms`, system: retention.dropMs },
  ];
  // system: with history; baseline: the empty database.
  const ratioRows: Row[] = latencyRows(empty).map(([metric, e], k): Row => ({ metric, system: withRows[k][1], baseline: e }));
  const rows = [...figureRows, ...ratioRows];
  const within = (name: string, e: Measured, h: Measured): Target => ({
    name: `${name} p99 with history within ${Math.round((TARGET_RATIO - 1) * 100)} % of the empty database's`,
    met: h.run.p99 <= TARGET_RATIO * e.run.p99 && h.run.errors === 0 && e.run.errors === 0,
    detail: `${h.run.p99} ms vs ${e.run.p99} ms = ${ratio(h.run.p99, e.run.p99).toFixed(2)} x, errors ${h.run.errors} / ${e.run.errors}`,
  });
  const targets: Target[] = [
    {
      name: `PostgreSQL bytes per search at most ${kb(TARGET_BYTES_PER_SEARCH)} KB (the unpartitioned layout: about 72 KB)`,
      met: size.bytesPerSearch <= TARGET_BYTES_PER_SEARCH,
      detail: `${size.bytesPerSearch} bytes = ${kb(size.bytesPerSearch)} KB over ${size.searches} searches`,
    },
    within(`search @ ${SEARCH.rate}/s`, empty.search, withHistory.search),
    within(`submit @ ${SUBMIT.rate}/s`, empty.submit, withHistory.submit),
    within(`dupe-check @ ${DUPE.rate}/s`, empty.dupe, withHistory.dupe),
    {
      name: `drop of a day's partitions under ${TARGET_DROP_MS} ms`,
      met: retention.dropMs < TARGET_DROP_MS,
      detail: `${retention.dropMs} ms for ${retention.partitions.map((p) => `${p.name} (${p.rows} rows, ${mb(p.bytes)} MB)`).join(', ')}`,
    },
  ];

  const machine = {
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
  process.stdout.write(
    `\nStorage — ${HISTORY.toLocaleString('en-US')} searches of history over ${HISTORY_DAYS} days; ${machine.nproc} cores (${machine.cpu}), node ${machine.node}\n\n` +
      `PostgreSQL growth per search on the empty database (bytes; ${size.searches} searches, partitions summed, after CHECKPOINT):\n\n${growthTable(size.growth)}\n\n` +
      `${figureTable(figureRows)}\n\n${ratioTable(ratioRows)}\n\n${targets.map((t) => `${t.met ? 'PASS' : 'MISS'}  ${t.name}: ${t.detail}`).join('\n')}\n`,
  );
  if (!FULL) {
    log(
      `STORAGE_HISTORY=${HISTORY}, STORAGE_HISTORY_DAYS=${HISTORY_DAYS}: not the full run (${FULL_HISTORY} over ${FULL_HISTORY_DAYS} days), figures not written`,
    );
    return;
  }
  const date = new Date().toISOString().slice(0, 10);
  const file = join(ROOT, 'bench', 'results', `storage-${date}.json`);
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  const figures = {
    date: new Date().toISOString(),
    machine,
    load: { sizeSearches: SIZE_LOAD, search: SEARCH, submit: SUBMIT, dupeCheck: DUPE, salesPerSearch: SALES_PER_SEARCH },
    size: { ...size, redisOpen: redisFigures(size.redisOpen), redisClosed: redisFigures(size.redisClosed) },
    empty,
    history,
    withHistory,
    ratiosP99: {
      search: ratio(withHistory.search.run.p99, empty.search.run.p99),
      submit: ratio(withHistory.submit.run.p99, empty.submit.run.p99),
      dupeCheck: ratio(withHistory.dupe.run.p99, empty.dupe.run.p99),
    },
    retention,
    targets,
    benchSeconds: Math.round((Date.now() - started) / 1000),
  };
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  log(`figures written to ${file}; the bench took ${figures.benchSeconds} s`);
  writeSection({
    name: 'storage',
    title: `Storage (${HISTORY.toLocaleString('en-US')} searches of history; baseline = empty database)`,
    rows,
    targets,
    figures,
  });

  /** a. SIZE_SEARCHES searches on the empty database: PostgreSQL's growth per search, Redis per open and per closed search. */
  async function sizePhase() {
    const count = async () => Number((await dbQuery<{ n: string }>('SELECT count(*) AS n FROM searches'))[0].n);
    const searchesBefore = await count();
    const before = await tableSizes(BENCH_STATE.databaseUrl);
    log(`size: ${SIZE_SEARCHES} searches at ${SIZE_LOAD.rate}/s (open loop) on the empty database`);
    const ids: string[] = [];
    const memory = await sampleRedisMemory(BENCH_STATE.redisUrl);
    const load = await runOpenLoop({
      baseUrl: gateway.url,
      ...SIZE_LOAD,
      call: (i) => ({ method: 'POST', path: '/api/v1/engine/search', headers: auth, body: JSON.stringify(body('z')(i)) }),
      onAnswer: (a) => void ids.push(answerJson(a).svc_lead_id),
    });
    if (load.errors > 0) log(`size: ${load.errors} searches failed`);
    // Done: every partner answered (or timed out) and the search's last change is stored.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const open = Number(
        (
          await dbQuery<{ n: string }>('SELECT count(*) AS n FROM searches WHERE id = ANY($1::uuid[]) AND processing_done_at IS NULL', [
            ids,
          ])
        )[0].n,
      );
      if (open === 0) break;
      if (Date.now() > deadline) throw new Error(`${open} of ${ids.length} searches still not done after 60 s`);
      await sleep(500);
    }
    await drain();
    // Every search is open (the load took less than a search's open window), so the peak is what SIZE_SEARCHES open searches hold.
    const peak = await memory.stop();
    const redisPeak = { ...peak, openSearches: ids.length, mbPer1000Open: Math.round(((peak.grownBytes / ids.length) * 1000) / 1e4) / 100 };
    log(
      `size: Redis used_memory peak ${peak.peakBytes} bytes, ${peak.grownBytes} over the ${peak.beforeBytes} before: ${redisPeak.mbPer1000Open} MB per 1,000 open searches (measured)`,
    );
    const redisOpen = await redisFootprint(BENCH_STATE.redisUrl, BENCH_STATE.redisPrefix, ids);
    log(
      `size: Redis ${redisOpen.bytesPerSearch} bytes per open search (${redisOpen.searches} states, TTL ${redisOpen.ttlSeconds.min}-${redisOpen.ttlSeconds.max} s)`,
    );
    const [{ wait_ms }] = await dbQuery<{ wait_ms: number }>(
      `SELECT GREATEST(0, extract(epoch FROM max(closes_at) - now()) * 1000)::float8 AS wait_ms FROM searches WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    log(`size: waiting ${(wait_ms / 1000).toFixed(0)} s for the searches to close`);
    await sleep(wait_ms + 2_000);
    await drain();
    const redisClosed = await redisFootprint(BENCH_STATE.redisUrl, BENCH_STATE.redisPrefix, ids);
    log(
      `size: Redis ${redisClosed.bytesPerSearch} bytes per closed search (${redisClosed.searches} states left, TTL ${redisClosed.ttlSeconds.min}-${redisClosed.ttlSeconds.max} s)`,
    );
    const after = await tableSizes(BENCH_STATE.databaseUrl);
    const searches = (await count()) - searchesBefore;
    const grown = [...after].reduce((sum, [t, a]) => sum + a.total - (before.get(t)?.total ?? 0), 0);
    const bytesPerSearch = Math.round(grown / searches);
    const growth = growthPer(before, after, searches);
    // What a search's row holds as stored now (compressed, TOAST included), beside what the tables grew by: the difference is
    // row versions its updates left (reclaimed by VACUUM for later rows, not returned), page and index overhead.
    const [{ row_bytes }] = await dbQuery<{ row_bytes: number }>(
      `SELECT avg(pg_column_size(s.*))::float8 AS row_bytes FROM searches s WHERE s.id = ANY($1::uuid[]) AND s.part_day = lr_id_day(s.id)`,
      [ids],
    );
    const rowBytes = Math.round(row_bytes);
    log(
      `size: PostgreSQL ${bytesPerSearch} bytes per search (${searches} searches, ${grown} bytes); a search's row holds ${rowBytes} bytes`,
    );
    return {
      searches,
      answered: ids.length,
      errors: load.errors,
      bytes: grown,
      bytesPerSearch,
      rowBytes,
      growth,
      redisOpen,
      redisClosed,
      redisPeak,
    };
  }

  /** b, d. Search, submit and pre-check latencies, each with the machine's CPU per request. */
  async function latencyRound(label: string, prefix: string): Promise<Round> {
    log(`${label}: search warm-up, ${SEARCH_WARM_UP.rate}/s for ${SEARCH_WARM_UP.warmupMs / 1000} s (not measured)`);
    await searchLoad(gateway.url, '/api/v1/engine/search', auth, body(`${prefix}w`), SEARCH_WARM_UP);
    await drain();
    log(`${label}: search, ${SEARCH.rate}/s open loop, ${SEARCH.warmupMs / 1000} s warm-up + ${SEARCH.durationMs / 1000} s`);
    const search = await measured(`${label}: search @ ${SEARCH.rate}/s`, sentOf(SEARCH), () =>
      searchLoad(gateway.url, '/api/v1/engine/search', auth, body(`${prefix}s`), SEARCH),
    );

    // Every submit its own (search, result) pair of searches made now (their results expire after 15 minutes).
    const submits = Math.round((SUBMIT_WARM_UP.rate * SUBMIT_WARM_UP.ms) / 1000) + sentOf(SUBMIT);
    const wanted = Math.ceil(submits / SALES_PER_SEARCH);
    log(`${label}: preparing ${wanted} searches (${PREP_CONCURRENCY} at a time) for ${submits} submits`);
    const prepared = await doneSearchAnswers(gateway.url, auth, body(`${prefix}p`), wanted, {
      concurrency: PREP_CONCURRENCY,
      keep: (a: SearchAnswer) => ({
        leadId: a.svc_lead_id,
        results: a.offers.filter((e) => ownOffers.has(e.offer.id)).map((e) => ({ id: e.svc_result_id, answers: answersFor(e) })),
      }),
    });
    const own = Math.min(...prepared.map((s) => s.results.length));
    if (own < 2 * SALES_PER_SEARCH) throw new Error(`a prepared search shows only ${own} own offers`);
    await drain();
    const stride = Math.floor(own / SALES_PER_SEARCH);
    const submitBody = (j: number) => {
      const s = prepared[j % prepared.length];
      const r = s.results[((j % prepared.length) + Math.floor(j / prepared.length) * stride) % own];
      return JSON.stringify({
        svc_campaign_id: campaignId,
        svc_affiliate_id: affiliateId,
        svc_result_id: r.id,
        search_lead_id: s.leadId,
        tcpa_consent: true,
        consent_button_label: 'Request info',
        ...r.answers,
      });
    };
    const warmUpCount = Math.round((SUBMIT_WARM_UP.rate * SUBMIT_WARM_UP.ms) / 1000);
    log(`${label}: submit warm-up, ${SUBMIT_WARM_UP.rate}/s for ${SUBMIT_WARM_UP.ms / 1000} s (not measured)`);
    await runOpenLoop({
      baseUrl: gateway.url,
      rate: SUBMIT_WARM_UP.rate,
      warmupMs: SUBMIT_WARM_UP.ms,
      durationMs: 0,
      call: (i) => ({ method: 'POST', path: '/api/v1/engine/leads', headers: auth, body: submitBody(i) }),
      ok: acceptedInto(new Map()),
    });
    await drain();
    log(`${label}: submit, ${SUBMIT.rate}/s open loop, ${SUBMIT.warmupMs / 1000} s warm-up + ${SUBMIT.durationMs / 1000} s`);
    const codes = new Map<string, number>();
    const submit = await measured(`${label}: submit @ ${SUBMIT.rate}/s`, sentOf(SUBMIT), () =>
      runOpenLoop({
        baseUrl: gateway.url,
        ...SUBMIT,
        call: (i) => ({ method: 'POST', path: '/api/v1/engine/leads', headers: auth, body: submitBody(warmUpCount + i) }),
        ok: acceptedInto(codes),
      }),
    );
    log(`${label}: submit answers (measured) ${JSON.stringify(Object.fromEntries(codes))}`);

    log(`${label}: dupe-check, ${DUPE.rate}/s open loop, ${DUPE.warmupMs / 1000} s warm-up + ${DUPE.durationMs / 1000} s`);
    let trueAnswers = 0;
    const dupe = await measured(`${label}: dupe-check @ ${DUPE.rate}/s`, sentOf(DUPE), () =>
      runOpenLoop({
        baseUrl: gateway.url,
        ...DUPE,
        call: (i) => ({ method: 'POST', path: '/api/v1/engine/dupe-check', headers: auth, body: dupeRequests[i % dupeRequests.length] }),
        onAnswer: (a) => {
          if ((JSON.parse(a.body.toString('utf8')) as { duplicate_likely: boolean }).duplicate_likely) trueAnswers++;
        },
      }),
    );
    log(`${label}: dupe-check answered true ${trueAnswers} times (measured)`);
    return { search, submit: { ...submit, codes: Object.fromEntries(codes) }, dupe: { ...dupe, trueAnswers } };
  }

  /** e. The retention run's work on one generated day: its submitted searches moved to the kept partition, then its partitions dropped, each timed. */
  async function dropDay(day: string) {
    const ds = createDataSource({
      url: BENCH_STATE.databaseUrl,
      poolSize: 1,
      timeoutMs: 60_000,
      applicationName: 'lead-router-storage-bench',
    });
    await ds.initialize();
    try {
      const store = new PartitionStore(ds);
      const partitions = (await store.partitions()).filter((p) => p.day === day);
      if (partitions.length !== PARTITIONED_TABLES.length)
        throw new Error(`day ${day} has ${partitions.length} partitions, not ${PARTITIONED_TABLES.length}`);
      let t = performance.now();
      const kept = await store.keepSubmitted(day, addDays(day, 1));
      const keepMs = Math.round(performance.now() - t);
      log(
        `retention: ${kept.searches} submitted searches of ${day} kept (${kept.calls} partner calls, ${kept.templates} templates) in ${keepMs} ms`,
      );
      const drops: Array<{ name: string; ms: number }> = [];
      for (const table of PARTITIONED_TABLES) {
        const name = `${table}_${daySuffix(day)}`;
        t = performance.now();
        await store.drop([name]);
        drops.push({ name, ms: Math.round((performance.now() - t) * 10) / 10 });
      }
      const dropMs = Math.round(drops.reduce((sum, d) => sum + d.ms, 0) * 10) / 10;
      log(`retention: dropped ${drops.map((d) => `${d.name} in ${d.ms} ms`).join(', ')}: ${dropMs} ms`);
      return { day, kept, keepMs, drops, dropMs, partitions: partitions.map((p) => ({ name: p.name, rows: p.rows, bytes: p.bytes })) };
    } finally {
      await ds.destroy();
    }
  }
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

function redisFigures(r: RedisFootprint) {
  return { searches: r.searches, bytesPerSearch: r.bytesPerSearch, mbPer1000: r.mbPer1000, ttlSeconds: r.ttlSeconds };
}

/** A text table: the header, then the cells, the first column left-aligned. */
function textTable(header: string[], cells: string[][]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((row) => row[c].length)));
  const line = (row: string[]) => `| ${row.map((v, c) => (c === 0 ? v.padEnd(widths[c]) : v.padStart(widths[c]))).join(' | ')} |`;
  return [line(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...cells.map(line)].join('\n');
}

const fmt = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '–' : String(n));

/** `figure | value`. */
function figureTable(rows: Row[]): string {
  return textTable(
    ['figure', 'value'],
    rows.map((r) => [r.metric, fmt(r.system)]),
  );
}

/** `metric | empty | with history | ratio` (ratio: with history / empty). */
function ratioTable(rows: Row[]): string {
  return textTable(
    ['metric', 'empty', 'with history', 'ratio'],
    rows.map((r) => [r.metric, fmt(r.baseline), fmt(r.system), r.baseline ? (r.system / r.baseline).toFixed(2) : '–']),
  );
}

async function cleanUp(): Promise<void> {
  await stopAutovacuumStandIn();
  await stopAllApps();
  removeBenchVhost();
}

runBench(main, cleanUp);
