import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultEntry } from '../libs/contracts/src';
import { ROOT, startApp, stopAllApps } from './support/app-process';
import { benchCatalog, benchSearchBody } from './support/bench-catalog';
import { benchLog as log, runBench } from './support/bench-main';
import { appEnv, benchEnv, ops, removeBenchVhost, resetBenchState, waitUntilDrained } from './support/bench-state';
import { Answer } from './support/http-client';
import { runOpenLoop } from './support/open-loop';
import { renderReport, Row } from './support/report';
import { writeSection } from './support/section';
import { doneSearchAnswers, startBaseline } from './support/search-drive';

/**
 * `npm run bench:submit`: the submit's decision latency (POST /leads until the
 * decision is answered: checks, the sale reserved, the sandbox school's answer,
 * the decision stored) at a fixed offered load, beside a bare-node baseline
 * doing the same PostgreSQL work and the same school call in the same run.
 * Every submit takes a result of a different search (a different person).
 */
const LOAD = { rate: 20, warmupMs: 3_000, durationMs: 20_000 };
const OWN_OFFERS = 20;


/** A result's submit fields: its first program and the first option of every question (the bench lead qualifies for all). */
function answersFor(entry: ResultEntry): Record<string, string> {
  const answers: Record<string, string> = {};
  if (entry.programs[0]) answers.program_id = entry.programs[0].value;
  for (const f of entry.form_fields) answers[f.name] = f.options?.[0]?.value ?? '1';
  return answers;
}

async function main(): Promise<void> {
  const run = randomBytes(3).toString('hex');
  log('resetting the bench state (database leadrouter_bench, Redis db 13, vhost leadrouter_bench)');
  await resetBenchState();
  const sandbox = await startApp('sandbox', benchEnv, 'live');
  const { catalog, affiliateId, campaignId } = benchCatalog(sandbox.url, { own: OWN_OFFERS, partner: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'lr-bench-submit-'));
  writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog));
  ops('catalog', 'apply', join(dir, 'catalog.json'));
  const { key } = JSON.parse(
    ops('keys', 'issue', '--affiliate', affiliateId, '--limit', 'search=1000000/100000', '--limit', 'results=1000000/1000000', '--limit', 'leads=1000000/100000'),
  ) as { key: string };
  const auth = { authorization: `Bearer ${key}` };

  log('starting checks, partner-adapter, search-orchestrator, delivery, gateway');
  await Promise.all(['checks', 'partner-adapter', 'search-orchestrator', 'delivery'].map((app) => startApp(app as 'checks', appEnv())));
  const gateway = await startApp('gateway', appEnv());

  const count = Math.round(((LOAD.warmupMs + LOAD.durationMs) / 1000) * LOAD.rate);
  log(`${count} searches to submit from`);
  const searches = await doneSearchAnswers(gateway.url, auth, (i) => benchSearchBody(campaignId, affiliateId, `${run}s`, i), count);
  if (searches.some((s) => s.offers.length < 2)) throw new Error('a bench search showed fewer than 2 results');
  await waitUntilDrained(60_000);

  const submitBody = (i: number, pick: number) => {
    const s = searches[i % searches.length];
    const entry = s.offers[pick];
    return JSON.stringify({
      svc_campaign_id: campaignId,
      svc_affiliate_id: affiliateId,
      svc_result_id: entry.svc_result_id,
      search_lead_id: s.svc_lead_id,
      tcpa_consent: true,
      consent_button_label: 'Request info',
      ...answersFor(entry),
    });
  };
  const codes = new Map<string, number>();
  const accepted = (a: Answer) => {
    let code = `HTTP ${a.status}`;
    try {
      code = (JSON.parse(a.body.toString('utf8')) as { code?: string }).code ?? code;
    } catch {
      /* not JSON: counted under its HTTP status */
    }
    codes.set(code, (codes.get(code) ?? 0) + 1);
    return a.status === 200 && code === 'ACCEPTED';
  };

  log(`submit, system: ${LOAD.rate}/s open loop, ${LOAD.warmupMs / 1000} s warm-up + ${LOAD.durationMs / 1000} s`);
  const system = await runOpenLoop({
    baseUrl: gateway.url,
    ...LOAD,
    call: (i) => ({ method: 'POST', path: '/api/v1/engine/leads', headers: auth, body: submitBody(i, 0) }),
    ok: accepted,
  });
  const systemCodes = Object.fromEntries(codes);
  codes.clear();
  await waitUntilDrained(60_000);

  log('submit, baseline: bare node:http + the same PostgreSQL transaction + the same school call, same load');
  const baselineApp = await startBaseline('submit-baseline', { BENCH_SCHOOL_URL: `${sandbox.url}/schools/bench/leads` });
  const baseline = await runOpenLoop({
    baseUrl: baselineApp.url,
    ...LOAD,
    call: (i) => ({ method: 'POST', path: '/submit', body: submitBody(i, 1) }),
    ok: accepted,
  });
  const baselineCodes = Object.fromEntries(codes);
  await baselineApp.stop();

  const rows: Row[] = [
    { metric: `submit decision p50 ms @ ${LOAD.rate}/s`, system: system.p50, baseline: baseline.p50 },
    { metric: `submit decision p90 ms @ ${LOAD.rate}/s`, system: system.p90, baseline: baseline.p90 },
    { metric: `submit decision p99 ms @ ${LOAD.rate}/s`, system: system.p99, baseline: baseline.p99 },
    { metric: `submit decision max ms @ ${LOAD.rate}/s`, system: system.max, baseline: baseline.max },
    { metric: 'submit achieved /s', system: system.achievedRate, baseline: baseline.achievedRate },
    { metric: 'submits measured', system: system.count, baseline: baseline.count },
    { metric: 'submits not ACCEPTED', system: system.errors, baseline: baseline.errors },
  ];
  const machine = { nproc: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${process.platform} ${process.arch}` };
  process.stdout.write(`\nSubmit decisions — ${machine.nproc} cores (${machine.cpu}), node ${machine.node}\n\n${renderReport(rows, [])}\n`);
  process.stdout.write(`codes (warm-up included): system ${JSON.stringify(systemCodes)}, baseline ${JSON.stringify(baselineCodes)}\n`);
  const date = new Date().toISOString().slice(0, 10);
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  const file = join(ROOT, 'bench', 'results', `submit-${date}.json`);
  const figures = { date: new Date().toISOString(), machine, load: LOAD, ownOffers: OWN_OFFERS, system, baseline, codes: { system: systemCodes, baseline: baselineCodes } };
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  log(`figures written to ${file}`);
  writeSection({ name: 'submit', title: 'Submit decisions', rows, targets: [], figures });
}

async function cleanUp(): Promise<void> {
  await stopAllApps();
  removeBenchVhost();
}

runBench(main, cleanUp);
