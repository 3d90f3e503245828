import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { ResultEntry } from '../libs/contracts/src';
import { ROOT, RunningApp, startApp, stopAllApps } from './support/app-process';
import { benchCatalog, benchSearchBody } from './support/bench-catalog';
import { startAutovacuumStandIn, stopAutovacuumStandIn } from './support/autovacuum';
import { benchLog as log, runBench } from './support/bench-main';
import { appEnv, BENCH_STATE, drainQueues, ops, removeBenchVhost, resetBenchState } from './support/bench-state';
import { Answer } from './support/http-client';
import { analyze, seedSalesHistory } from './support/sales-history';
import { OpenLoopResult, runOpenLoop } from './support/open-loop';
import { byProcessLine, groupMs, withMachineCpuPerUnit } from './support/process-cpu';
import { renderReport, Row, Target } from './support/report';
import { writeSection } from './support/section';
import { doneSearchAnswers, SearchAnswer, startBaseline } from './support/search-drive';

/**
 * `npm run bench:submit`: the submit's decision latency (POST /leads until the
 * decision is answered: checks, the sale reserved, the sandbox school's answer,
 * the decision stored) and the whole machine's CPU per submit, at three offered
 * rates (open loop), beside a bare-node baseline doing the same PostgreSQL work
 * and the same school call at the same rates in the same run
 * (bench/results/performance-history.md, "Submit decisions").
 * Every submit takes its own (search, result) pair of searches prepared
 * beforehand, so none is refused as a duplicate or over the sale limit.
 */
const FULL_RATES = [20, 50, 80];
/**
 * `BENCH_SUBMIT_RATES=50` (a comma list) measures only those rates (for
 * profiling one load, or comparing two builds faster); the figures are then
 * printed but not written to bench/results.
 */
const RATES: readonly number[] = process.env.BENCH_SUBMIT_RATES
  ? process.env.BENCH_SUBMIT_RATES.split(',').map((r) => Number(r.trim()))
  : FULL_RATES;
const PARTIAL = process.env.BENCH_SUBMIT_RATES !== undefined;
const WARMUP_MS = 3_000;
/**
 * Before its first phase each side handles WARM_UP.rate submits a second for
 * WARM_UP.ms, unmeasured, then drains: node compiles a path to machine code
 * only after it has run a while, and an app that never handled a submit
 * would have the first phase measure its compiler (a backlog that outlasts a
 * phase's own 3 s warm-up), not its steady cost.
 */
const WARM_UP = { rate: 20, ms: 10_000 };
const warmUpCount = Math.round((WARM_UP.rate * WARM_UP.ms) / 1000);
const DURATION_MS = 15_000;
/** A 50-offer campaign of own offers only: every submit picks an own result. */
const OWN_OFFERS = 50;
/** Sales of one search by the system over all its phases, under max_accepted_submissions (3). */
const SALES_PER_SEARCH = 2;
/** Searches prepared at once: a closed loop, so the system's own pace sets the rate and none times out. */
const PREP_CONCURRENCY = 8;
/** Longest wait for the system to work off a backlog after a phase. */
const DRAIN_MAX_MS = 120_000;
const TARGET_P99_MS = 100;
const TARGET_P99_RATE = 50;
const TARGET_CPU_RATIO = 2.5;
/** The system's own processes (the "apps" CPU row); PostgreSQL, RabbitMQ, Redis, the sandbox and the driver are in the machine row. */
const APPS = ['gateway', 'checks', 'delivery', 'search-orchestrator', 'partner-adapter'] as const;
const BASELINE_NAME = 'submit baseline';
/** Other people sold before the bench (support/sales-history.ts): the dedupe index a live system reads. */
const HISTORY_PEOPLE = 50_000;

/**
 * Result picks: a search's k-th sale takes result (search + k * STRIDE) mod
 * OWN_OFFERS, so its sales go to different offers and consecutive submits to
 * different offers (no hot cap row); the baseline's picks are shifted by half
 * a stride, onto offers the system does not sell that search to.
 */
const STRIDE = Math.floor(OWN_OFFERS / SALES_PER_SEARCH);
const PICK_OFFSET = { system: 0, baseline: Math.floor(STRIDE / 2) } as const;
type Side = keyof typeof PICK_OFFSET;

/** Submits sent in a phase at `rate`, warm-up included (runOpenLoop's count): what its CPU time is divided by. */
const sentAt = (rate: number) => Math.round(((WARMUP_MS + DURATION_MS) / 1000) * rate);

/** What a submit needs of a prepared search: its lead id and, per result, the result id and the submit's fields. */
interface PreparedSearch {
  leadId: string;
  results: Array<{ resultId: string; answers: Record<string, string> }>;
}

/** One side at one rate: the open-loop figures, the answers' codes, the machine's CPU per submit by process, the drain after it. */
interface PhaseRun {
  rate: number;
  sent: number;
  run: OpenLoopResult;
  codes: Record<string, number>;
  cpuByProcess: Array<{ group: string; ms: number }>;
  cpuMachineMs: number;
  cpuAppsMs: number;
  drained: { ms: number; left: number };
}

/** Where one side's submits go, and which of its processes are named in the CPU breakdown (pid -> name) and summed as its apps. */
interface Driven {
  side: Side;
  url: string;
  path: string;
  headers: Record<string, string>;
  named: Map<number, string>;
  apps: readonly string[];
}

/** A result's submit fields: its first program and the first option of every question (the bench lead qualifies for all). */
function answersFor(entry: ResultEntry): Record<string, string> {
  const answers: Record<string, string> = {};
  if (entry.programs[0]) answers.program_id = entry.programs[0].value;
  for (const f of entry.form_fields) answers[f.name] = f.options?.[0]?.value ?? '1';
  return answers;
}

const prepared = (a: SearchAnswer): PreparedSearch => ({
  leadId: a.svc_lead_id,
  results: a.offers.map((e) => ({ resultId: e.svc_result_id, answers: answersFor(e) })),
});

/** The (search, result) indexes of a side's j-th submit over all its phases: search j mod `searches`, its sale floor(j / searches). */
function pairOf(side: Side, j: number, searches: number): { search: number; result: number } {
  const search = j % searches;
  const sale = Math.floor(j / searches);
  if (sale >= SALES_PER_SEARCH) throw new Error(`submit ${j} would be sale ${sale + 1} of search ${search}: prepare more searches`);
  return { search, result: (search + sale * STRIDE + PICK_OFFSET[side]) % OWN_OFFERS };
}

/** Proves the construction: no (search, result) pair is submitted twice, by either side. */
function checkPairs(submitsPerSide: number, searches: number): void {
  const seen = new Set<string>();
  for (const side of Object.keys(PICK_OFFSET) as Side[]) {
    for (let j = 0; j < submitsPerSide; j++) {
      const { search, result } = pairOf(side, j, searches);
      const key = `${search}:${result}`;
      if (seen.has(key)) throw new Error(`pair ${key} submitted twice (${side} submit ${j})`);
      seen.add(key);
    }
  }
}

/** The system's stored decisions (every submit of every phase, warm-up and late decisions included), by code; `pending` when undecided. */
async function storedDecisions(): Promise<Record<string, number>> {
  const pg = new Client({ connectionString: BENCH_STATE.databaseUrl });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ code: string; n: string }>(
      `SELECT coalesce(code, status) AS code, count(*) AS n FROM leads WHERE kind = 'result_submit' GROUP BY 1 ORDER BY 2 DESC`,
    );
    return Object.fromEntries(rows.map((r) => [r.code, Number(r.n)]));
  } finally {
    await pg.end();
  }
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

const meetsLatency = (r: OpenLoopResult) => r.p99 < TARGET_P99_MS && r.errors === 0;
/** The highest of the measured rates with p99 under the target and no errors; 0 when none. */
const highestRate = (runs: PhaseRun[]) => Math.max(0, ...runs.filter((p) => meetsLatency(p.run)).map((p) => p.rate));
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

async function main(): Promise<void> {
  const started = Date.now();
  if (RATES.some((r) => !Number.isFinite(r) || r <= 0))
    throw new Error(`BENCH_SUBMIT_RATES must list rates per second, got ${process.env.BENCH_SUBMIT_RATES}`);
  if (!PARTIAL && !RATES.includes(TARGET_P99_RATE))
    throw new Error(`the latency target's rate ${TARGET_P99_RATE}/s is not among the rates measured`);
  const run = randomBytes(3).toString('hex');
  log('resetting the bench state (database leadrouter_bench, Redis db 13, vhost leadrouter_bench)');
  await resetBenchState();
  startAutovacuumStandIn(BENCH_STATE.databaseUrl, log);
  const sandbox = await startApp('sandbox', appEnv(), 'live');
  const { catalog, affiliateId, campaignId } = benchCatalog(sandbox.url, { own: OWN_OFFERS, partner: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'lr-bench-submit-'));
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
    ),
  ) as { key: string };
  const auth = { authorization: `Bearer ${key}` };
  const history = await seedSalesHistory(BENCH_STATE.databaseUrl, campaignId, HISTORY_PEOPLE);
  log(
    `sales history: ${history.leads} sold leads of other people, ${history.keys} dedupe keys, analyzed (${(history.ms / 1000).toFixed(1)} s)`,
  );

  log(`starting ${APPS.join(', ')}`);
  const env = appEnv();
  const workers = await Promise.all(
    (['checks', 'partner-adapter', 'search-orchestrator', 'delivery'] as const).map((app) => startApp(app, env)),
  );
  const gateway = await startApp('gateway', env);
  const apps: RunningApp[] = [...workers, gateway];

  // Every search a different person (one run prefix, a different index each), each sold at most SALES_PER_SEARCH times.
  const submitsPerSide = RATES.reduce((sum, rate) => sum + sentAt(rate), warmUpCount);
  const wanted = Math.ceil(submitsPerSide / SALES_PER_SEARCH);
  log(`preparing ${wanted} searches (${PREP_CONCURRENCY} at a time) for ${submitsPerSide} submits per side`);
  const prepStarted = Date.now();
  const searches = await doneSearchAnswers(gateway.url, auth, (i) => benchSearchBody(campaignId, affiliateId, `${run}s`, i), wanted, {
    concurrency: PREP_CONCURRENCY,
    keep: prepared,
  });
  const prepMs = Date.now() - prepStarted;
  log(`${searches.length} searches done in ${(prepMs / 1000).toFixed(1)} s (${Math.round(searches.length / (prepMs / 1000))}/s)`);
  const short = searches.filter((s) => s.results.length !== OWN_OFFERS).length;
  if (short > 0) throw new Error(`${short} bench searches did not show all ${OWN_OFFERS} own offers`);
  checkPairs(submitsPerSide, searches.length);
  await drain();
  await analyze(BENCH_STATE.databaseUrl);

  const submitBody = (side: Side, j: number) => {
    const { search, result } = pairOf(side, j, searches.length);
    const s = searches[search];
    const r = s.results[result];
    return JSON.stringify({
      svc_campaign_id: campaignId,
      svc_affiliate_id: affiliateId,
      svc_result_id: r.resultId,
      search_lead_id: s.leadId,
      tcpa_consent: true,
      consent_button_label: 'Request info',
      ...r.answers,
    });
  };

  /**
   * One side at one rate, open loop; the machine's CPU by process over the phase and the drain after it, per submit sent.
   * `first`: the side's submits before this phase (its pairs go on from there).
   */
  const phase = async (d: Driven, rate: number, first: number): Promise<PhaseRun> => {
    log(`submit, ${d.side}: ${rate}/s open loop, ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s`);
    const codes = new Map<string, number>();
    const sent = sentAt(rate);
    const { result, msPerUnit } = await withMachineCpuPerUnit(
      d.named,
      async () => {
        const measured = await runOpenLoop({
          baseUrl: d.url,
          rate,
          warmupMs: WARMUP_MS,
          durationMs: DURATION_MS,
          call: (i) => ({ method: 'POST', path: d.path, headers: d.headers, body: submitBody(d.side, first + i) }),
          ok: acceptedInto(codes),
        });
        return { measured, drained: await drain() };
      },
      () => sent,
    );
    log(`machine CPU ms per submit @ ${rate}/s, ${d.side}, by process: ${byProcessLine(msPerUnit)}`);
    log(
      `slowest submits @ ${rate}/s, ${d.side} (due at s: ms): ${result.measured.slowest.map((x) => `${(x.dueMs / 1000).toFixed(1)}: ${x.ms}`).join(', ')}`,
    );
    // The bench names every node process of its own, so a `node` or `npm …` group is someone else's work on the machine.
    const foreign = groupMs(
      msPerUnit,
      msPerUnit.map((g) => g.group).filter((g) => /^(node|npm|npx)\b/.test(g)),
    );
    if (foreign >= 0.5)
      log(
        `node processes the bench did not start used ${foreign} ms per submit: the machine was not quiet, so this phase's CPU figures are inflated`,
      );
    return {
      rate,
      sent,
      run: result.measured,
      codes: Object.fromEntries(codes),
      cpuByProcess: msPerUnit,
      cpuMachineMs: msPerUnit[0].ms,
      cpuAppsMs: groupMs(msPerUnit, d.apps),
      drained: result.drained,
    };
  };

  /** The warm-up, then each rate in turn for one side, its pairs going on from phase to phase. */
  const phases = async (d: Driven) => {
    log(`submit, ${d.side}: warm-up, ${WARM_UP.rate}/s for ${WARM_UP.ms / 1000} s (not measured)`);
    const codes = new Map<string, number>();
    await runOpenLoop({
      baseUrl: d.url,
      rate: WARM_UP.rate,
      warmupMs: WARM_UP.ms,
      durationMs: 0,
      call: (i) => ({ method: 'POST', path: d.path, headers: d.headers, body: submitBody(d.side, i) }),
      ok: acceptedInto(codes),
    });
    await drain();
    const runs: PhaseRun[] = [];
    let first = warmUpCount;
    for (const rate of RATES) {
      runs.push(await phase(d, rate, first));
      first += sentAt(rate);
    }
    return runs;
  };

  const system = await phases({
    side: 'system',
    url: gateway.url,
    path: '/api/v1/engine/leads',
    headers: auth,
    named: new Map([
      [process.pid, 'bench driver'],
      [sandbox.child.pid!, 'sandbox'],
      ...apps.map((a): [number, string] => [a.child.pid!, a.app]),
    ]),
    apps: APPS,
  });
  const decisions = await storedDecisions();
  log(`system decisions stored (all phases, warm-ups included): ${JSON.stringify(decisions)}`);
  if (decisions.DUPLICATE || decisions.NOT_ELIGIBLE)
    log('DUPLICATE or NOT_ELIGIBLE decisions: the bench gave a (search, offer) pair twice or sold a search too often');

  // The system's processes stop first, so their idle work does not count in the baseline's machine CPU.
  log(`stopping ${APPS.join(', ')}`);
  await Promise.all(apps.map((a) => a.stop()));
  log('submit, baseline: bare node:http + the same PostgreSQL transaction + the same school call, same rates');
  const baselineApp = await startBaseline('submit-baseline', { BENCH_SCHOOL_URL: `${sandbox.url}/schools/bench/leads` });
  const baseline = await phases({
    side: 'baseline',
    url: baselineApp.url,
    path: '/submit',
    headers: {},
    named: new Map([
      [process.pid, 'bench driver'],
      [sandbox.child.pid!, 'sandbox'],
      [baselineApp.child.pid!, BASELINE_NAME],
    ]),
    apps: [BASELINE_NAME],
  });
  await baselineApp.stop();

  const rows: Row[] = system.flatMap((s, k) => {
    const b = baseline[k];
    const at = `@ ${s.rate}/s`;
    return [
      { metric: `submit p50 ms ${at}`, system: s.run.p50, baseline: b.run.p50 },
      { metric: `submit p90 ms ${at}`, system: s.run.p90, baseline: b.run.p90 },
      { metric: `submit p99 ms ${at}`, system: s.run.p99, baseline: b.run.p99 },
      { metric: `submit max ms ${at}`, system: s.run.max, baseline: b.run.max },
      { metric: `submit achieved /s ${at}`, system: s.run.achievedRate, baseline: b.run.achievedRate },
      { metric: `submits measured ${at}`, system: s.run.count, baseline: b.run.count },
      { metric: `submits not ACCEPTED ${at}`, system: s.run.errors, baseline: b.run.errors },
      { metric: `CPU ms per submit ${at} (machine)`, system: s.cpuMachineMs, baseline: b.cpuMachineMs },
      { metric: `CPU ms per submit ${at} (apps)`, system: s.cpuAppsMs, baseline: b.cpuAppsMs },
    ];
  });
  const highest = { system: highestRate(system), baseline: highestRate(baseline) };
  rows.push({ metric: `highest rate /s with p99 < ${TARGET_P99_MS} ms, no errors`, system: highest.system, baseline: highest.baseline });
  const atTargetRate = system.find((s) => s.rate === TARGET_P99_RATE);
  const targets: Target[] = [
    ...system.map((s, k) => {
      const b = baseline[k];
      return {
        name: `CPU per submit machine-wide <= ${TARGET_CPU_RATIO} x baseline at ${s.rate}/s`,
        met: s.cpuMachineMs <= TARGET_CPU_RATIO * b.cpuMachineMs,
        detail: `${s.cpuMachineMs} ms vs ${b.cpuMachineMs} ms = ${ratio(s.cpuMachineMs, b.cpuMachineMs).toFixed(2)} x`,
      };
    }),
    // A partial run without the target's rate says so rather than judging another rate.
    ...(atTargetRate
      ? [
          {
            name: `submit p99 < ${TARGET_P99_MS} ms at ${TARGET_P99_RATE} submits/s with no errors`,
            met: meetsLatency(atTargetRate.run),
            detail: `p99 ${atTargetRate.run.p99} ms, ${atTargetRate.run.errors} errors`,
          },
        ]
      : []),
  ];

  const machine = {
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
  process.stdout.write(
    `\nSubmit decisions (${OWN_OFFERS} own offers) — ${machine.nproc} cores (${machine.cpu}), node ${machine.node}\n\n${renderReport(rows, targets)}\n`,
  );
  process.stdout.write(
    `highest rate with p99 < ${TARGET_P99_MS} ms and no errors: system ${highest.system}/s, baseline ${highest.baseline}/s (of ${RATES.join(', ')}/s)\n`,
  );
  for (const [k, s] of system.entries()) {
    process.stdout.write(
      `codes @ ${s.rate}/s (measured): system ${JSON.stringify(s.codes)}, baseline ${JSON.stringify(baseline[k].codes)}\n`,
    );
  }
  process.stdout.write(`system decisions stored (all phases, warm-ups included): ${JSON.stringify(decisions)}\n`);

  if (PARTIAL) {
    log(`BENCH_SUBMIT_RATES=${RATES.join(',')}: a partial run, figures not written`);
    return;
  }
  const date = new Date().toISOString().slice(0, 10);
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  const file = join(ROOT, 'bench', 'results', `submit-${date}.json`);
  const figures = {
    date: new Date().toISOString(),
    machine,
    load: { rates: RATES, warmupMs: WARMUP_MS, durationMs: DURATION_MS },
    ownOffers: OWN_OFFERS,
    preparation: { searches: searches.length, ms: prepMs, concurrency: PREP_CONCURRENCY, salesPerSearch: SALES_PER_SEARCH },
    phases: system.map((s, k) => ({ rate: s.rate, system: s, baseline: baseline[k] })),
    highestRateWithinTarget: highest,
    storedDecisions: decisions,
    targets,
  };
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  log(`figures written to ${file}; the bench took ${Math.round((Date.now() - started) / 1000)} s`);
  writeSection({ name: 'submit', title: 'Submit decisions', rows, targets, figures });
}

/** Waits for queued work to end; says how long the system needed to work off a backlog. */
const drain = () => drainQueues(DRAIN_MAX_MS, log);

async function cleanUp(): Promise<void> {
  await stopAutovacuumStandIn();
  await stopAllApps();
  removeBenchVhost();
}

runBench(main, cleanUp);
