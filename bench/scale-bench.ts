import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, startApp, stopAllApps } from './support/app-process';
import { benchCatalog, benchSearchBody, mergeCatalogs } from './support/bench-catalog';
import { startAutovacuumStandIn, stopAutovacuumStandIn } from './support/autovacuum';
import { benchLog as log, runBench } from './support/bench-main';
import { appEnv, BENCH_STATE, benchEnv, ops, removeBenchVhost, resetBenchState, waitUntilDrained } from './support/bench-state';
import { runOpenLoop } from './support/open-loop';
import { renderReport, Row } from './support/report';
import { writeSection } from './support/section';
import { doneSearches, firstSearch, searchLoad, startBaseline } from './support/search-drive';

/**
 * `npm run bench:scale`: how cost grows. The search answer's latency on
 * campaigns of 10, 100 and 1,000 own offers (each on its own school, so a live
 * search shows every one), and the poll's latency on searches of 10 and 200
 * results, each at a fixed offered load beside the same bare-node baselines as
 * bench:search (same JSON size), in the same run (docs/performance.md).
 */
const SEARCH_SIZES = [10, 100, 1000];
const SEARCH_LOAD = { rate: 4, warmupMs: 2_000, durationMs: 10_000 };
const POLL_SIZES = [10, 200];
const POLL_SEARCHES = 40;
const POLL_LOAD = { rate: 200, warmupMs: 2_000, durationMs: 10_000 };
const DRAIN_MAX_MS = 60_000;

async function main(): Promise<void> {
  const run = randomBytes(3).toString('hex');
  log('resetting the bench state (database leadrouter_bench, Redis db 13, vhost leadrouter_bench)');
  await resetBenchState();
  startAutovacuumStandIn(BENCH_STATE.databaseUrl, log);
  const sandbox = await startApp('sandbox', benchEnv, 'live');

  const sizes = [...new Set([...SEARCH_SIZES, ...POLL_SIZES])];
  const campaigns = new Map(sizes.map((own) => [own, benchCatalog(sandbox.url, { own, partner: 0 })]));
  const dir = mkdtempSync(join(tmpdir(), 'lr-bench-scale-'));
  writeFileSync(join(dir, 'catalog.json'), JSON.stringify(mergeCatalogs([...campaigns.values()].map((c) => c.catalog))));
  log(`applying a catalog with campaigns of ${sizes.join(', ')} own offers`);
  ops('catalog', 'apply', join(dir, 'catalog.json'));
  const keys = new Map(
    [...campaigns].map(([own, c]) => {
      const issued = JSON.parse(
        ops('keys', 'issue', '--affiliate', c.affiliateId, '--limit', 'search=1000000/100000', '--limit', 'results=1000000/1000000'),
      ) as { key: string };
      return [own, { authorization: `Bearer ${issued.key}` }];
    }),
  );

  log('starting checks, partner-adapter, search-orchestrator, gateway');
  await Promise.all([startApp('checks', appEnv()), startApp('partner-adapter', appEnv()), startApp('search-orchestrator', appEnv())]);
  const gateway = await startApp('gateway', appEnv());
  const body = (own: number, prefix: string) => (i: number) => {
    const c = campaigns.get(own)!;
    return benchSearchBody(c.campaignId, c.affiliateId, `${run}${own}${prefix}`, i);
  };

  const rows: Row[] = [];
  const figures: Record<string, unknown> = {};
  for (const own of SEARCH_SIZES) {
    const auth = keys.get(own)!;
    const template = await firstSearch(gateway.url, auth, body(own, 't')(0));
    log(
      `search on ${own} offers: ${SEARCH_LOAD.rate}/s open loop, ${SEARCH_LOAD.warmupMs / 1000} s warm-up + ${SEARCH_LOAD.durationMs / 1000} s, system then baseline`,
    );
    const system = await searchLoad(gateway.url, '/api/v1/engine/search', auth, body(own, 's'), SEARCH_LOAD);
    await waitUntilDrained(DRAIN_MAX_MS);
    writeFileSync(join(dir, `entries-${own}.json`), JSON.stringify(template));
    const baselineApp = await startBaseline('search-baseline', { BENCH_ENTRIES_FILE: join(dir, `entries-${own}.json`) });
    const baseline = await searchLoad(baselineApp.url, '/search', {}, body(own, 'b'), SEARCH_LOAD);
    await baselineApp.stop();
    figures[`search${own}`] = { system, baseline };
    rows.push(
      { metric: `search p50 ms, ${own} offers`, system: system.p50, baseline: baseline.p50 },
      { metric: `search p99 ms, ${own} offers`, system: system.p99, baseline: baseline.p99 },
      { metric: `search errors, ${own} offers`, system: system.errors, baseline: baseline.errors },
      {
        metric: `search answer KB, ${own} offers`,
        system: Math.round(system.avgAnswerBytes / 102.4) / 10,
        baseline: Math.round(baseline.avgAnswerBytes / 102.4) / 10,
      },
    );
  }

  const pollBaseline = await startBaseline('poll-baseline', {});
  for (const own of POLL_SIZES) {
    const auth = keys.get(own)!;
    log(`polls of ${own}-result searches: ${POLL_SEARCHES} searches, then ${POLL_LOAD.rate}/s open loop, system then baseline`);
    const ids = await doneSearches(gateway.url, auth, body(own, 'p'), POLL_SEARCHES);
    await waitUntilDrained(DRAIN_MAX_MS);
    const system = await runOpenLoop({
      baseUrl: gateway.url,
      ...POLL_LOAD,
      call: (i) => ({ method: 'GET', path: `/api/v1/engine/results/${ids[i % ids.length]}`, headers: auth }),
    });
    const baseline = await runOpenLoop({
      baseUrl: pollBaseline.url,
      ...POLL_LOAD,
      call: (i) => ({ method: 'GET', path: `/results/${ids[i % ids.length]}` }),
    });
    figures[`poll${own}`] = { system, baseline };
    rows.push(
      { metric: `poll p50 ms, ${own} results @ ${POLL_LOAD.rate}/s`, system: system.p50, baseline: baseline.p50 },
      { metric: `poll p99 ms, ${own} results @ ${POLL_LOAD.rate}/s`, system: system.p99, baseline: baseline.p99 },
      { metric: `poll errors, ${own} results`, system: system.errors, baseline: baseline.errors },
    );
  }
  await pollBaseline.stop();

  const machine = {
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
  process.stdout.write(`\nHow cost grows — ${machine.nproc} cores (${machine.cpu}), node ${machine.node}\n\n${renderReport(rows, [])}\n`);
  const date = new Date().toISOString().slice(0, 10);
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  const file = join(ROOT, 'bench', 'results', `scale-${date}.json`);
  const all = {
    date: new Date().toISOString(),
    machine,
    load: { search: SEARCH_LOAD, poll: POLL_LOAD, pollSearches: POLL_SEARCHES },
    ...figures,
  };
  writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
  log(`figures written to ${file}`);
  writeSection({ name: 'scale', title: 'How cost grows (offers per campaign, results per poll)', rows, targets: [], figures: all });
}

async function cleanUp(): Promise<void> {
  await stopAutovacuumStandIn();
  await stopAllApps();
  removeBenchVhost();
}

runBench(main, cleanUp);
