import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { applyCatalog } from '../apps/ops/src/catalog/apply-catalog';
import { seedAcceptedLeads } from './support/accepted-leads';
import { benchDatabaseUrl, dropBenchDatabase, freshBenchDatabase } from './support/bench-database';
import { ROOT } from './support/app-process';
import { benchLog as log, runBench } from './support/bench-main';

/**
 * `npm run bench:statement`: how long `ops statement` takes for an affiliate
 * and for a school with LEADS accepted leads in the window (docs/returns.md,
 * "Statements"; the bound is 10 s for 100,000). The leads are seeded in bulk
 * into the schema as a sold direct post leaves them (bench/support
 * accepted-leads: lead and accepted sale, payout 0.10, price 0.35, one a
 * second over the last LEADS seconds) and RETURNS of them returned (their
 * reversal entries, as the returns ledger writes them); then ANALYZE, as
 * autovacuum would. The built CLI runs RUNS times per statement, its output
 * to a file; each output is checked: its lines, and totals that are the exact
 * sums (and the affiliate's equal to `ops report`'s for the window).
 *
 * Its own database, leadrouter_bench_statement, dropped before and after.
 */
const LEADS = Number(process.env.STATEMENT_LEADS ?? 100_000);
const RETURNS = Math.floor(LEADS / 50);
const RUNS = 3;
const DATABASE_NAME = 'leadrouter_bench_statement';
const DATABASE_URL = benchDatabaseUrl(DATABASE_NAME);
const LIMIT_SECONDS = 10;

interface Run {
  wallSeconds: number;
  maxRssMb: number;
}

/** Runs the built CLI under /usr/bin/time with stdout to `file`; its wall time and max RSS. */
function cli(args: string[], file: string): Run {
  const fd = openSync(file, 'w');
  const started = performance.now();
  const r = spawnSync('/usr/bin/time', ['-v', process.execPath, join(ROOT, 'dist/apps/ops/src/main.js'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL, LOG_LEVEL: 'warn' },
    stdio: ['ignore', fd, 'pipe'],
    encoding: 'utf8',
    timeout: 300_000,
  });
  const wallMs = performance.now() - started;
  closeSync(fd);
  if (r.status !== 0) throw new Error(`ops ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  const rssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1]);
  return { wallSeconds: Number((wallMs / 1000).toFixed(2)), maxRssMb: Math.round(rssKb / 1024) };
}

const spread = (runs: Run[]) => {
  const s = runs.map((r) => r.wallSeconds);
  return { min: Math.min(...s), median: [...s].sort((a, b) => a - b)[Math.floor(s.length / 2)], max: Math.max(...s) };
};

async function main(): Promise<void> {
  const ds = await freshBenchDatabase(DATABASE_NAME);
  const dir = mkdtempSync(join(tmpdir(), 'lr-bench-statement-'));
  try {
    const ids = { affiliate: randomUUID(), school: randomUUID(), offer: randomUUID(), campaign: randomUUID() };
    const applied = await applyCatalog(ds, {
      affiliates: [{ id: ids.affiliate, name: 'Bench affiliate', status: 'active' }],
      schools: [{ id: ids.school, name: 'Bench school' }],
      offers: [
        {
          id: ids.offer,
          name: 'Bench offer',
          school_id: ids.school,
          source: 'own',
          offer_type: 'shared',
          status: 'active',
          price: 0.35,
          tcpa_text: 'I agree.',
          programs: [{ value: 'gen', label: 'General' }],
          delivery: { adapter: 'sandbox', url: 'http://127.0.0.1:9/never' },
          returns: { window_days: 30, reasons: ['wrong_number'] },
        },
      ],
      campaigns: [
        { id: ids.campaign, affiliate_id: ids.affiliate, name: 'Bench', status: 'active', offers: [{ offer_id: ids.offer, payout: 0.1 }] },
      ],
    });
    if (!applied.ok) throw new Error(`bench catalog refused: ${JSON.stringify(applied.issues)}`);
    await ds.query(
      `INSERT INTO api_keys (id, affiliate_id, key_hash, key_prefix, limits) VALUES (gen_random_uuid(), $1, repeat('b', 64), 'lr_bench', '{}')`,
      [ids.affiliate],
    );

    const seedStart = performance.now();
    const now = Date.now();
    const from = new Date(now - (LEADS + 60) * 1000);
    await seedAcceptedLeads(ds, { campaignId: ids.campaign, offerId: ids.offer, count: LEADS, payout: '0.10', from, stepMs: 1000 });
    // As the returns ledger writes a return (its row and reversal entries), for every 50th lead: bulk, in one statement.
    await ds.query(
      `INSERT INTO lead_returns (lead_id, sale_id, offer_id, school_id, campaign_id, affiliate_id, reason, source, payout_reversal, price_reversal, returned_at)
       SELECT sa.lead_id, sa.id, sa.offer_id, sa.school_id, sa.campaign_id, sa.affiliate_id, 'wrong_number', 'import', -sa.payout, -sa.price, now()
         FROM sales sa WHERE sa.school_id = $1 ORDER BY sa.created_at LIMIT $2`,
      [ids.school, RETURNS],
    );
    await ds.query('ANALYZE');
    log(
      `seeded ${LEADS.toLocaleString('en-US')} accepted leads and ${RETURNS.toLocaleString('en-US')} returns in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
    );

    const window = ['--from', new Date(now - (LEADS + 3600) * 1000).toISOString(), '--to', new Date(now + 3600_000).toISOString()];
    const statements = {
      affiliate_csv: {
        args: ['statement', '--affiliate', ids.affiliate, ...window, '--format', 'csv'],
        gross: LEADS * 10,
        returned: RETURNS * 10,
      },
      school_json: {
        args: ['statement', '--school', ids.school, ...window, '--format', 'json'],
        gross: LEADS * 35,
        returned: RETURNS * 35,
      },
    };
    const cents = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;
    const results: Record<string, { runs: Run[]; spread: ReturnType<typeof spread>; outputMb: number }> = {};
    for (const [name, s] of Object.entries(statements)) {
      const runs: Run[] = [];
      const file = join(dir, `${name}.out`);
      for (let i = 0; i < RUNS; i += 1) {
        runs.push(cli(s.args, file));
        log(`${name} run ${i + 1}: ${runs[i].wallSeconds} s`);
      }
      const text = readFileSync(file, 'utf8');
      // The output is the statement: every line, and the exact totals.
      if (name.endsWith('csv')) {
        const lines = text.trimEnd().split('\n');
        const tail = lines.slice(-3);
        const expected = [
          `gross,,,,,,,${cents(s.gross)},${LEADS}`,
          `returns,,,,,,,-${cents(s.returned)},${RETURNS}`,
          `net,,,,,,,${cents(s.gross - s.returned)},`,
        ];
        if (lines.length !== 1 + LEADS + RETURNS + 3 || JSON.stringify(tail) !== JSON.stringify(expected))
          throw new Error(`${name}: unexpected output ${JSON.stringify(tail)}`);
      } else {
        const json = JSON.parse(text) as { accepted: unknown[]; returns: unknown[]; totals: Record<string, unknown> };
        const expected = {
          accepted: LEADS,
          gross: cents(s.gross),
          returns: RETURNS,
          returned: `-${cents(s.returned)}`,
          net: cents(s.gross - s.returned),
        };
        if (json.accepted.length !== LEADS || json.returns.length !== RETURNS || JSON.stringify(json.totals) !== JSON.stringify(expected)) {
          throw new Error(`${name}: unexpected totals ${JSON.stringify(json.totals)}`);
        }
      }
      results[name] = { runs, spread: spread(runs), outputMb: Number((Buffer.byteLength(text) / 1e6).toFixed(1)) };
    }
    const reportFile = join(dir, 'report.json');
    cli(['report', ...window, '--by', 'affiliate', '--affiliate', ids.affiliate, '--json'], reportFile);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as { totals: { accepted: number; payouts: number } };
    if (report.totals.accepted !== LEADS || report.totals.payouts.toFixed(2) !== cents(statements.affiliate_csv.gross)) {
      throw new Error(`ops report disagrees with the statement: ${JSON.stringify(report.totals)}`);
    }

    const worst = Math.max(...Object.values(results).map((r) => r.spread.max));
    const figures = {
      date: new Date().toISOString(),
      machine: { nproc: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version },
      command: 'npm run bench:statement',
      leads: LEADS,
      returns: RETURNS,
      runsPerStatement: RUNS,
      statements: results,
      limitSeconds: LIMIT_SECONDS,
      withinLimit: worst < LIMIT_SECONDS,
      reportAgrees: true,
    };
    process.stdout.write(
      `\nops statement over ${LEADS.toLocaleString('en-US')} accepted leads and ${RETURNS.toLocaleString('en-US')} returns (${RUNS} runs each; limit ${LIMIT_SECONDS} s)\n` +
        Object.entries(results)
          .map(
            ([name, r]) =>
              `  ${name}: ${r.runs.map((x) => `${x.wallSeconds} s`).join(', ')} (min ${r.spread.min}, median ${r.spread.median}, max ${r.spread.max}); ${r.outputMb} MB out, max RSS ${Math.max(...r.runs.map((x) => x.maxRssMb))} MB\n`,
          )
          .join('') +
        `  totals exact; ops report agrees (accepted ${report.totals.accepted}, payouts ${report.totals.payouts.toFixed(2)})\n`,
    );
    if (process.env.STATEMENT_LEADS === undefined) {
      mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
      const resultFile = join(ROOT, 'bench', 'results', `statement-${figures.date.slice(0, 10)}.json`);
      writeFileSync(resultFile, `${JSON.stringify(figures, null, 2)}\n`);
      log(`figures written to ${resultFile}`);
    }
    if (!figures.withinLimit) throw new Error(`a statement took ${worst} s, over the ${LIMIT_SECONDS} s limit`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await ds.destroy();
  }
}

runBench(main, async () => {
  await dropBenchDatabase(DATABASE_NAME).catch(() => undefined);
});
