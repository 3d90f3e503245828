import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, startApp, stopAllApps } from './support/app-process';
import { benchCatalog, benchSearchBody, OWN_OFFERS } from './support/bench-catalog';
import { appEnv, BENCH_STATE, drainQueues, ops, removeBenchVhost, resetBenchState } from './support/bench-state';
import { seedSalesHistory } from './support/sales-history';
import { ClosedLoopResult, runClosedLoop } from './support/closed-loop';
import { startAutovacuumStandIn, stopAutovacuumStandIn } from './support/autovacuum';
import { benchLog as log, runBench } from './support/bench-main';
import { Call } from './support/http-client';
import { runOpenLoop } from './support/open-loop';
import { renderReport, Row } from './support/report';
import { histogramDelta, scrape } from './support/metrics-text';
import { byProcessLine, groupMs, withCpuPerUnit, withMachineCpuPerUnit } from './support/process-cpu';
import { writeSection } from './support/section';
import { doneSearches, firstSearch, searchLoad, SearchRun, startBaseline } from './support/search-drive';
import { redisFootprint } from './support/redis-footprint';
import { medianBy } from './support/stats';

/**
 * `npm run bench:search`: the search answer's latency at a fixed offered load
 * and the poll's throughput and latency, for a 50-offer campaign, each beside a
 * bare-node baseline measured in the same run (docs/performance.md).
 */
const SEARCH = { rate: 50, warmupMs: 5_000, durationMs: 30_000 };
/** A lower load measured too, to show where the system stands below its capacity on this machine. */
const SEARCH_MODERATE = { rate: 20, warmupMs: 3_000, durationMs: 10_000 };
/** Turns of the moderate load's four phases (searchPhases): the CPU figures are their medians. */
const MODERATE_TURNS = 3;
/**
 * Before the first measured phase each side handles WARM_UP searches a second
 * for its duration, unmeasured, then drains (as the submit bench does): node
 * compiles a path to machine code only after it has run a while, and the
 * services have many more paths than a bare baseline, so a phase measured
 * straight after start-up counts their compiler (a tenth to a fifth of each
 * app's CPU in a profile of the first 20/s phase), not what a search costs a
 * running system.
 */
const WARM_UP = { rate: 20, warmupMs: 15_000, durationMs: 0 };
/** Other people sold before the bench (support/sales-history.ts): the dedupe index a live system reads. */
const HISTORY_PEOPLE = 50_000;
const POLL_SEARCHES = 200;
const POLL_THROUGHPUT = { connections: 64, warmupMs: 3_000, durationMs: 10_000 };
/** Paired turns of the poll throughput (system, then baseline): its figures are the median turn's. */
const POLL_TURNS = 3;
const POLL_LATENCY = { rate: 500, warmupMs: 2_000, durationMs: 10_000 };
/** Longest wait for the system to work off a backlog between phases. */
const DRAIN_MAX_MS = 60_000;
const TARGET_SEARCH_P99_MS = 100;
const TARGET_POLL_RATIO = 0.6;
/**
 * A search's machine CPU is judged against the baseline that also makes the
 * partner round (the bare process, its PostgreSQL transaction and Redis write,
 * and the two partners' calls with their results stored): the design card's
 * services are kept, so the floor is the same work done by one bare process.
 * The ratio to the bare baseline without the round is printed beside it.
 */
const TARGET_SEARCH_CPU_RATIO = 2.5;
/**
 * `BENCH_SEARCH_PHASES=search` or `=polls` runs one half (for profiling one
 * path, or comparing two builds faster); the figures are then printed but not
 * written to bench/results.
 */
const PHASES = new Set((process.env.BENCH_SEARCH_PHASES ?? 'search,polls').split(',').map((p) => p.trim()));

async function main(): Promise<void> {
  const run = randomBytes(3).toString('hex');
  log('resetting the bench state (database leadrouter_bench, Redis db 13, vhost leadrouter_bench)');
  await resetBenchState();
  startAutovacuumStandIn(BENCH_STATE.databaseUrl, log);

  const sandbox = await startApp('sandbox', appEnv(), 'live');
  const { catalog, affiliateId, campaignId, partnerCalls } = benchCatalog(sandbox.url);
  // The same 46 own offers' kind on a campaign of their own, without partner offers: what a search's first answer costs alone.
  const ownOnly = benchCatalog(sandbox.url, { own: OWN_OFFERS, partner: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'lr-bench-'));
  writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog));
  ops('catalog', 'apply', join(dir, 'catalog.json'));
  writeFileSync(join(dir, 'catalog-own.json'), JSON.stringify(ownOnly.catalog));
  ops('catalog', 'apply', join(dir, 'catalog-own.json'));
  const issueKey = (affiliate: string) =>
    (
      JSON.parse(
        ops('keys', 'issue', '--affiliate', affiliate, '--limit', 'search=1000000/100000', '--limit', 'results=1000000/1000000'),
      ) as { key: string }
    ).key;
  const key = issueKey(affiliateId);
  const ownOnlyKey = issueKey(ownOnly.affiliateId);
  const history = await seedSalesHistory(BENCH_STATE.databaseUrl, campaignId, HISTORY_PEOPLE);
  log(
    `sales history: ${history.leads} sold leads of other people, ${history.keys} dedupe keys, analyzed (${(history.ms / 1000).toFixed(1)} s)`,
  );

  log('starting checks, partner-adapter, search-orchestrator, gateway');
  const env = appEnv();
  const [checksApp, partnerAdapter, orchestrator] = await Promise.all([
    startApp('checks', env),
    startApp('partner-adapter', env),
    startApp('search-orchestrator', env),
  ]);
  const gateway = await startApp('gateway', env);
  const auth = { authorization: `Bearer ${key}` };
  const body = (prefix: string) => (i: number) => benchSearchBody(campaignId, affiliateId, `${run}${prefix}`, i);

  // One search first: it proves the pipeline answers, and its entries give the baseline the same JSON size.
  const template = await firstSearch(gateway.url, auth, body('t')(0));

  const searchPart = PHASES.has('search') ? await searchPhases() : undefined;
  const pollPart = PHASES.has('polls') ? await pollPhases() : undefined;

  const machine = {
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
  const rows = [...(searchPart?.rows ?? []), ...(pollPart?.rows ?? [])];
  const targets = [...(searchPart?.targets ?? []), ...(pollPart?.targets ?? [])];
  process.stdout.write(
    `\nSearch and polling — ${machine.nproc} cores (${machine.cpu}), node ${machine.node}\n\n${renderReport(rows, targets)}\n`,
  );
  if (!searchPart || !pollPart) {
    log(`BENCH_SEARCH_PHASES=${[...PHASES].join(',')}: a partial run, figures not written`);
    return;
  }

  const date = new Date().toISOString().slice(0, 10);
  const file = join(ROOT, 'bench', 'results', `search-${date}.json`);
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  const figures = {
    date: new Date().toISOString(),
    machine,
    load: { search: SEARCH, pollSearches: POLL_SEARCHES, pollThroughput: POLL_THROUGHPUT, pollLatency: POLL_LATENCY },
    ...searchPart.figures,
    ...pollPart.figures,
    cpu: { ...searchPart.figures.cpu, ...pollPart.figures.cpu },
    targets,
  };
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  log(`figures written to ${file}`);
  writeSection({ name: 'search', title: 'Search and polling (50-offer campaign)', rows, targets, figures });

  /** Waits until the baseline's partner rounds have all ended (at most 30 s); how many failed. */
  async function roundsDone(url: string): Promise<{ failures: number }> {
    for (const until = Date.now() + 30_000; ;) {
      const state = (await (await fetch(`${url}/pending`)).json()) as { pending: number; failures: number };
      if (state.pending === 0 || Date.now() > until) return { failures: state.failures + state.pending };
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * Searches at the moderate load in alternating turns, then at the target
   * load, system then baseline. The machine's CPU per search is a small
   * figure on a shared host whose neighbours come and go: one window of
   * each side, minutes apart, moved the ratio by a third between runs. So
   * each turn measures the four 20/s phases back to back (the system, the
   * system on the campaign without partner offers, the baseline, the
   * baseline with the partner round), and the figures are the medians of
   * the turns; the target is judged on the median of each turn's paired
   * ratio, and every turn is printed and kept.
   */
  async function searchPhases() {
    log(`search, system: warm-up, ${WARM_UP.rate}/s for ${WARM_UP.warmupMs / 1000} s (not measured)`);
    await searchLoad(gateway.url, '/api/v1/engine/search', auth, body('w'), WARM_UP);
    await drain();

    log('search, baselines: bare node:http + one PostgreSQL transaction + Redis SET, and the same with the partner round; warm-up each');
    writeFileSync(join(dir, 'entries.json'), JSON.stringify(template));
    const searchBaselineApp = await startBaseline('search-baseline', { BENCH_ENTRIES_FILE: join(dir, 'entries.json') });
    // The target's baseline: the same bare process also making each search's partner round (the two partners'
    // calls to the sandbox, their results appended in one statement and one Redis write). The one without the round
    // is printed too: what the system costs beyond the floor of the first answer alone.
    const roundBaselineApp = await startBaseline('search-baseline', {
      BENCH_ENTRIES_FILE: join(dir, 'entries.json'),
      BENCH_PARTNER_CALLS: JSON.stringify(partnerCalls),
    });
    await searchLoad(searchBaselineApp.url, '/search', {}, body('v'), WARM_UP);
    await searchLoad(roundBaselineApp.url, '/search', {}, body('u'), WARM_UP);
    await roundsDone(roundBaselineApp.url);

    // The whole machine's CPU per search (answer, partner results and all), by process, over the phase and the drain after
    // it: the four apps of a search, and PostgreSQL, RabbitMQ, Redis, the sandbox and this driver too.
    const moderateSent = (SEARCH_MODERATE.rate * (SEARCH_MODERATE.warmupMs + SEARCH_MODERATE.durationMs)) / 1000;
    const apps = { gateway, checks: checksApp, 'partner-adapter': partnerAdapter, 'search-orchestrator': orchestrator };
    const named = new Map<number, string>([
      [process.pid, 'bench driver'],
      [sandbox.child.pid!, 'sandbox'],
      ...Object.entries(apps).map(([name, a]) => [a.child.pid!, name] as [number, string]),
    ]);
    named.set(searchBaselineApp.child.pid!, 'search baseline');
    named.set(roundBaselineApp.child.pid!, 'search baseline with the partner round');
    const ownOnlyAuth = { authorization: `Bearer ${ownOnlyKey}` };
    const phase = (send: () => Promise<SearchRun>, after: () => Promise<unknown>) =>
      withMachineCpuPerUnit(
        named,
        async () => {
          const result = await send();
          await after();
          return result;
        },
        () => moderateSent,
      );
    const turns: ModerateTurn[] = [];
    for (let t = 1; t <= MODERATE_TURNS; t++) {
      const tag = `${t}`;
      log(
        `turn ${t} of ${MODERATE_TURNS} at ${SEARCH_MODERATE.rate}/s (${SEARCH_MODERATE.warmupMs / 1000} s + ${SEARCH_MODERATE.durationMs / 1000} s each): system, system without partner offers, baseline, baseline with the partner round`,
      );
      const system = await phase(() => searchLoad(gateway.url, '/api/v1/engine/search', auth, body(`m${tag}`), SEARCH_MODERATE), drain);
      const ownOnlyBody = (i: number) => benchSearchBody(ownOnly.campaignId, ownOnly.affiliateId, `${run}n${tag}`, i);
      const noPartners = await phase(
        () => searchLoad(gateway.url, '/api/v1/engine/search', ownOnlyAuth, ownOnlyBody, SEARCH_MODERATE),
        drain,
      );
      const baseline = await phase(
        () => searchLoad(searchBaselineApp.url, '/search', {}, body(`c${tag}`), SEARCH_MODERATE),
        async () => undefined,
      );
      let roundFailures = 0;
      const roundBaseline = await phase(
        () => searchLoad(roundBaselineApp.url, '/search', {}, body(`r${tag}`), SEARCH_MODERATE),
        async () => void (roundFailures = (await roundsDone(roundBaselineApp.url)).failures),
      );
      const turn = { system, noPartners, baseline, roundBaseline, roundFailures };
      turns.push(turn);
      log(
        `turn ${t}: machine CPU ms per search: system ${system.msPerUnit[0].ms}, without partner offers ${noPartners.msPerUnit[0].ms}, ` +
          `baseline ${baseline.msPerUnit[0].ms}, baseline with the partner round ${roundBaseline.msPerUnit[0].ms}; ` +
          `system / baseline with the partner round ${(system.msPerUnit[0].ms / roundBaseline.msPerUnit[0].ms).toFixed(2)} x, ` +
          `system / baseline ${(system.msPerUnit[0].ms / baseline.msPerUnit[0].ms).toFixed(2)} x; partner rounds failed: ${roundFailures}`,
      );
    }
    // Each figure from its median turn (the breakdown with it); the ratio judged is the median of the turns' paired ratios.
    const medianOf = (pick: (turn: ModerateTurn) => Measured) => medianBy(turns.map(pick), (m) => m.msPerUnit[0].ms);
    const { result: searchModerate, msPerUnit: machineMs } = medianOf((x) => x.system);
    const { result: searchOwnOnly, msPerUnit: ownOnlyMs } = medianOf((x) => x.noPartners);
    const { result: searchBaselineModerate, msPerUnit: baselineMachineMs } = medianOf((x) => x.baseline);
    const { result: roundBaselineModerate, msPerUnit: roundBaselineMs } = medianOf((x) => x.roundBaseline);
    const roundFailures = turns.reduce((sum, x) => sum + x.roundFailures, 0);
    const ratios = turns.map((x) => x.system.msPerUnit[0].ms / x.roundBaseline.msPerUnit[0].ms);
    const cpuRatio = medianBy(ratios, (r) => r);
    const bareRatios = turns.map((x) => x.system.msPerUnit[0].ms / x.baseline.msPerUnit[0].ms);
    const bareCpuRatio = medianBy(bareRatios, (r) => r);
    const searchAppsMs = groupMs(machineMs, Object.keys(apps));
    const searchBaselineMs = groupMs(baselineMachineMs, ['search baseline']);
    log(`machine CPU ms per search @ ${SEARCH_MODERATE.rate}/s (median turn), by process: ${byProcessLine(machineMs)}`);
    log(`machine CPU ms per search @ ${SEARCH_MODERATE.rate}/s, no partner offers (median turn), by process: ${byProcessLine(ownOnlyMs)}`);
    log(`machine CPU ms per search @ ${SEARCH_MODERATE.rate}/s, baseline (median turn), by process: ${byProcessLine(baselineMachineMs)}`);
    log(
      `machine CPU ms per search @ ${SEARCH_MODERATE.rate}/s, baseline with the partner round (median turn), by process: ${byProcessLine(roundBaselineMs)}`,
    );
    log(
      `the partner round (two partners' calls, their answer merged), machine CPU ms per search, by turn: ${turns.map((x) => (x.system.msPerUnit[0].ms - x.noPartners.msPerUnit[0].ms).toFixed(1)).join(', ')}`,
    );
    log(
      `the partner round's floor (the baselines' difference), by turn: ${turns.map((x) => (x.roundBaseline.msPerUnit[0].ms - x.baseline.msPerUnit[0].ms).toFixed(1)).join(', ')}; partner rounds failed: ${roundFailures}`,
    );

    log(`search, system: ${SEARCH.rate}/s open loop, ${SEARCH.warmupMs / 1000} s warm-up + ${SEARCH.durationMs / 1000} s`);
    const scrapeAll = () =>
      Promise.all([scrape(orchestrator.managementUrl), scrape(checksApp.managementUrl), scrape(gateway.managementUrl)]);
    const before = await scrapeAll();
    const searchSystem = await searchLoad(gateway.url, '/api/v1/engine/search', auth, body('s'), SEARCH);
    const after = await scrapeAll();
    // Where the time of a search goes at the target load: the orchestrator's stages and the checks' handler, from their histograms.
    const stages = [
      ...histogramDelta(before[0].samples, after[0].samples, 'search_start_stage_seconds').map((h) => ({
        ...h,
        key: `orchestrator ${h.key}`,
      })),
      ...histogramDelta(before[1].samples, after[1].samples, 'messaging_handler_duration_seconds').map((h) => ({
        ...h,
        key: `checks handler ${h.key}`,
      })),
    ];
    log(
      `stages at ${SEARCH.rate}/s (histogram bucket bounds, s): ${stages.map((h) => `${h.key} n=${h.count} p50<=${h.p50} p99<=${h.p99}`).join('; ')}`,
    );

    const drainAfterSearch = await drain();

    log(`search, baseline: ${SEARCH.rate}/s open loop, ${SEARCH.warmupMs / 1000} s warm-up + ${SEARCH.durationMs / 1000} s`);
    const searchBaseline = await searchLoad(searchBaselineApp.url, '/search', {}, body('b'), SEARCH);
    await searchBaselineApp.stop();
    await roundBaselineApp.stop();

    const rows: Row[] = [
      { metric: `search p50 ms @ ${SEARCH_MODERATE.rate}/s`, system: searchModerate.p50, baseline: searchBaselineModerate.p50 },
      { metric: `search p99 ms @ ${SEARCH_MODERATE.rate}/s`, system: searchModerate.p99, baseline: searchBaselineModerate.p99 },
      { metric: `search errors @ ${SEARCH_MODERATE.rate}/s`, system: searchModerate.errors, baseline: searchBaselineModerate.errors },
      { metric: `CPU ms per search @ ${SEARCH_MODERATE.rate}/s (apps)`, system: searchAppsMs, baseline: searchBaselineMs },
      { metric: `CPU ms per search @ ${SEARCH_MODERATE.rate}/s (machine)`, system: machineMs[0].ms, baseline: baselineMachineMs[0].ms },
      {
        metric: `CPU ms per search @ ${SEARCH_MODERATE.rate}/s (machine), no partner offers`,
        system: ownOnlyMs[0].ms,
        baseline: baselineMachineMs[0].ms,
      },
      {
        metric: `search p99 ms @ ${SEARCH_MODERATE.rate}/s, no partner offers`,
        system: searchOwnOnly.p99,
        baseline: searchBaselineModerate.p99,
      },
      {
        metric: `CPU ms per search @ ${SEARCH_MODERATE.rate}/s (machine), baseline with the partner round`,
        system: machineMs[0].ms,
        baseline: roundBaselineMs[0].ms,
      },
      {
        metric: `search errors @ ${SEARCH_MODERATE.rate}/s, baseline with the partner round`,
        system: searchModerate.errors,
        baseline: roundBaselineModerate.errors + roundFailures,
      },
      { metric: `search p50 ms @ ${SEARCH.rate}/s`, system: searchSystem.p50, baseline: searchBaseline.p50 },
      { metric: `search p90 ms @ ${SEARCH.rate}/s`, system: searchSystem.p90, baseline: searchBaseline.p90 },
      { metric: `search p99 ms @ ${SEARCH.rate}/s`, system: searchSystem.p99, baseline: searchBaseline.p99 },
      { metric: `search max ms @ ${SEARCH.rate}/s`, system: searchSystem.max, baseline: searchBaseline.max },
      { metric: 'search achieved /s', system: searchSystem.achievedRate, baseline: searchBaseline.achievedRate },
      { metric: 'searches measured', system: searchSystem.count, baseline: searchBaseline.count },
      { metric: 'search errors (non-200)', system: searchSystem.errors, baseline: searchBaseline.errors },
      { metric: 'search offers per answer', system: searchSystem.avgOffers, baseline: searchBaseline.avgOffers },
      { metric: 'search answer bytes', system: searchSystem.avgAnswerBytes, baseline: searchBaseline.avgAnswerBytes },
    ];
    const targets = [
      {
        name: `CPU per search machine-wide <= ${TARGET_SEARCH_CPU_RATIO} x the baseline with the partner round at ${SEARCH_MODERATE.rate}/s`,
        met: cpuRatio <= TARGET_SEARCH_CPU_RATIO,
        detail:
          `median of ${turns.length} paired turns ${cpuRatio.toFixed(2)} x (turns: ${turns.map((x, i) => `${x.system.msPerUnit[0].ms} / ${x.roundBaseline.msPerUnit[0].ms} = ${ratios[i].toFixed(2)}`).join('; ')}); ` +
          `against the baseline without the round ${bareCpuRatio.toFixed(2)} x`,
      },
      {
        name: `search p99 < ${TARGET_SEARCH_P99_MS} ms at ${SEARCH.rate} searches/s`,
        met: searchSystem.p99 < TARGET_SEARCH_P99_MS && searchSystem.errors === 0,
        detail: `p99 ${searchSystem.p99} ms, ${searchSystem.errors} errors`,
      },
    ];
    const figures = {
      search: { system: searchSystem, baseline: searchBaseline },
      searchModerate: { load: SEARCH_MODERATE, system: searchModerate, baseline: searchBaselineModerate },
      searchModerateNoPartners: { load: SEARCH_MODERATE, system: searchOwnOnly },
      cpu: {
        searchMsAppsAtModerate: { system: searchAppsMs, baseline: searchBaselineMs },
        searchMsMachineAtModerate: { system: machineMs, baseline: baselineMachineMs },
        searchMsMachineAtModerateNoPartners: { system: ownOnlyMs },
        searchMsMachineAtModerateBaselineWithPartnerRound: { baseline: roundBaselineMs },
        // Every turn's machine CPU per search (ms) and its paired ratio; the figures above are the medians' turns.
        searchMsMachineAtModerateTurns: turns.map((x, i) => ({
          system: x.system.msPerUnit[0].ms,
          noPartners: x.noPartners.msPerUnit[0].ms,
          baseline: x.baseline.msPerUnit[0].ms,
          baselineWithPartnerRound: x.roundBaseline.msPerUnit[0].ms,
          ratio: Math.round(ratios[i] * 100) / 100,
          ratioToBareBaseline: Math.round(bareRatios[i] * 100) / 100,
        })),
        searchCpuRatioMedian: Math.round(cpuRatio * 100) / 100,
        searchCpuRatioToBareBaselineMedian: Math.round(bareCpuRatio * 100) / 100,
      },
      stagesAtTargetLoad: stages,
      drainedAfterSearch: drainAfterSearch,
    };
    return { rows, targets, figures };
  }

  /** Polls of done searches: closed-loop throughput, then latency at a fixed rate, system then baseline. */
  async function pollPhases() {
    log(`polls: ${POLL_SEARCHES} searches, then waiting until they are done`);
    const ids = await doneSearches(gateway.url, auth, body('p'), POLL_SEARCHES);
    const drainBeforePolls = await drain();
    // What these searches hold in Redis while their results can be submitted, and for how long (docs/search.md, Consistency).
    const redis = await redisFootprint(BENCH_STATE.redisUrl, BENCH_STATE.redisPrefix, ids);
    log(
      `Redis: ${redis.bytesPerSearch} bytes per search state (${redis.searches} searches), ${redis.mbPer1000} MB per 1,000 open searches, ` +
        `kept ${redis.ttlSeconds.min}-${redis.ttlSeconds.max} s more; working set at ${SEARCH.rate} searches/s: ${redis.workingSetMbAt(SEARCH.rate)} MB`,
    );
    const pollBaselineApp = await startBaseline('poll-baseline', {});
    const pollCall =
      (prefix: string, headers: Record<string, string>) =>
      (i: number): Call => ({ method: 'GET', path: `${prefix}${ids[i % ids.length]}`, headers });
    const gatewayPoll = pollCall('/api/v1/engine/results/', auth);
    const baselinePoll = pollCall('/results/', {});

    log(
      `poll throughput: closed loop, ${POLL_THROUGHPUT.connections} connections, ${POLL_THROUGHPUT.durationMs / 1000} s each, system then baseline in ${POLL_TURNS} turns`,
    );
    // The server's own CPU per poll, beside the throughput: it says where the gap is, and it moves less than throughput between runs.
    // Alternating turns, as at the moderate search load: the throughput of a 2-core host shared with neighbours moves between
    // windows, so each turn pairs the two sides back to back, and the figures are the median turn's.
    const perSent = (r: { sent: number }) => r.sent;
    const pollTurns: Array<{
      system: { result: ClosedLoopResult; cpuUsPerUnit?: number };
      baseline: { result: ClosedLoopResult; cpuUsPerUnit?: number };
      ratio: number;
    }> = [];
    for (let t = 1; t <= POLL_TURNS; t++) {
      const system = await withCpuPerUnit(
        [gateway.child.pid],
        () => runClosedLoop({ baseUrl: gateway.url, ...POLL_THROUGHPUT, call: gatewayPoll }),
        perSent,
      );
      const baseline = await withCpuPerUnit(
        [pollBaselineApp.child.pid],
        () => runClosedLoop({ baseUrl: pollBaselineApp.url, ...POLL_THROUGHPUT, call: baselinePoll }),
        perSent,
      );
      const ratio = system.result.throughput / baseline.result.throughput;
      pollTurns.push({ system, baseline, ratio });
      log(
        `poll turn ${t}: ${system.result.throughput}/s vs ${baseline.result.throughput}/s = ${ratio.toFixed(2)} x; server CPU µs per poll ${system.cpuUsPerUnit} vs ${baseline.cpuUsPerUnit}`,
      );
    }
    const medianPollTurn = medianBy(pollTurns, (x) => x.ratio);
    const { result: pollTputSystem, cpuUsPerUnit: pollCpuUs } = medianPollTurn.system;
    const { result: pollTputBaseline, cpuUsPerUnit: pollBaselineCpuUs } = medianPollTurn.baseline;
    log(`poll latency: ${POLL_LATENCY.rate}/s open loop, ${POLL_LATENCY.durationMs / 1000} s each`);
    const pollLatSystem = await runOpenLoop({ baseUrl: gateway.url, ...POLL_LATENCY, call: gatewayPoll });
    const pollLatBaseline = await runOpenLoop({ baseUrl: pollBaselineApp.url, ...POLL_LATENCY, call: baselinePoll });

    const rows: Row[] = [
      {
        metric: `poll throughput /s (${POLL_THROUGHPUT.connections} conns)`,
        system: pollTputSystem.throughput,
        baseline: pollTputBaseline.throughput,
      },
      { metric: 'poll p50 ms (closed loop)', system: pollTputSystem.p50, baseline: pollTputBaseline.p50 },
      { metric: 'poll p99 ms (closed loop)', system: pollTputSystem.p99, baseline: pollTputBaseline.p99 },
      { metric: 'poll errors (closed loop)', system: pollTputSystem.errors, baseline: pollTputBaseline.errors },
      { metric: 'server CPU µs per poll', system: pollCpuUs ?? NaN, baseline: pollBaselineCpuUs ?? NaN },
      { metric: `poll p50 ms @ ${POLL_LATENCY.rate}/s`, system: pollLatSystem.p50, baseline: pollLatBaseline.p50 },
      { metric: `poll p99 ms @ ${POLL_LATENCY.rate}/s`, system: pollLatSystem.p99, baseline: pollLatBaseline.p99 },
      { metric: `poll max ms @ ${POLL_LATENCY.rate}/s`, system: pollLatSystem.max, baseline: pollLatBaseline.max },
      { metric: `poll achieved /s @ ${POLL_LATENCY.rate}/s`, system: pollLatSystem.achievedRate, baseline: pollLatBaseline.achievedRate },
      { metric: `poll errors @ ${POLL_LATENCY.rate}/s`, system: pollLatSystem.errors, baseline: pollLatBaseline.errors },
    ];
    const pollRatio = medianPollTurn.ratio;
    const pollErrors = pollTurns.reduce((sum, x) => sum + x.system.result.errors, 0);
    const targets = [
      {
        name: `poll throughput >= ${TARGET_POLL_RATIO} x baseline`,
        met: pollRatio >= TARGET_POLL_RATIO && pollErrors === 0,
        detail: `median of ${pollTurns.length} paired turns ${pollRatio.toFixed(2)} x (turns: ${pollTurns.map((x) => `${x.system.result.throughput} / ${x.baseline.result.throughput} = ${x.ratio.toFixed(2)}`).join('; ')}), ${pollErrors} errors`,
      },
    ];
    const figures = {
      pollThroughput: {
        system: pollTputSystem,
        baseline: pollTputBaseline,
        ratio: Math.round(pollRatio * 100) / 100,
        turns: pollTurns.map((x) => ({
          system: x.system.result.throughput,
          baseline: x.baseline.result.throughput,
          ratio: Math.round(x.ratio * 100) / 100,
          serverUsPerPoll: { system: x.system.cpuUsPerUnit, baseline: x.baseline.cpuUsPerUnit },
        })),
      },
      cpu: { pollServerUs: { system: pollCpuUs, baseline: pollBaselineCpuUs } },
      pollLatency: { system: pollLatSystem, baseline: pollLatBaseline },
      drainedBeforePolls: drainBeforePolls,
      redis: {
        searches: redis.searches,
        bytesPerSearch: redis.bytesPerSearch,
        mbPer1000OpenSearches: redis.mbPer1000,
        ttlSeconds: redis.ttlSeconds,
        workingSetMbAtTargetRate: redis.workingSetMbAt(SEARCH.rate),
      },
    };
    return { rows, targets, figures };
  }
}

/** One phase's run and the machine's CPU per search by process (withMachineCpuPerUnit). */
interface Measured {
  result: SearchRun;
  msPerUnit: Array<{ group: string; ms: number }>;
}

/** The four phases of one turn at the moderate load. */
interface ModerateTurn {
  system: Measured;
  noPartners: Measured;
  baseline: Measured;
  roundBaseline: Measured;
  roundFailures: number;
}

/** Waits for queued work to end; says how long the system needed to work off a backlog. */
const drain = () => drainQueues(DRAIN_MAX_MS, log);

/** Stops every process the bench started and deletes its vhost. */
async function cleanUp(): Promise<void> {
  await stopAutovacuumStandIn();
  await stopAllApps();
  removeBenchVhost();
}

runBench(main, cleanUp);
