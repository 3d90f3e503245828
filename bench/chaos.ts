import { randomInt } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT, stopAllApps } from './support/app-process';
import { runBench } from './support/bench-main';
import { OwnState, removeVhost, resetState, stateEnv } from './support/bench-state';
import { BrokerFault, closeChaosBrokers } from './support/chaos/broker';
import type { Tally } from './support/chaos/chaos-driver';
import { renderChaosReport } from './support/chaos/chaos-report';
import { runChaos } from './support/chaos/chaos-run';

/**
 * `npm run bench:chaos`: the fault run (docs/chaos.md) on its own state —
 * database leadrouter_chaos, Redis db 11 under `chaos:`, vhost
 * leadrouter_chaos — dropped and recreated each run. Exits 1 when anything
 * was lost, delivered twice or oversold, or when no redelivery was seen.
 *
 * CHAOS_DURATION_S (240), CHAOS_CLIENTS (8), CHAOS_FAULT_EVERY_S (15),
 * CHAOS_SEED (random), CHAOS_BROKER (`own-node`: a RabbitMQ node of the run's
 * own, really restarted; `proxy`: the machine's broker behind a proxy that is
 * cut — see bench/support/chaos/broker.ts).
 */
const STATE: OwnState = {
  databaseUrl: 'postgres://postgres@127.0.0.1:5432/leadrouter_chaos',
  redisUrl: 'redis://127.0.0.1:6379/11',
  redisPrefix: 'chaos:',
  vhost: 'leadrouter_chaos',
  amqpPrefix: 'chaos',
};

const log = (msg: string) => process.stderr.write(`[chaos] ${msg}\n`);

function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
  return n;
}

function brokerFault(): BrokerFault {
  const raw = process.env.CHAOS_BROKER ?? 'own-node';
  if (raw !== 'proxy' && raw !== 'own-node') throw new Error(`CHAOS_BROKER must be own-node or proxy, got ${raw}`);
  return raw;
}

/** A tally for the figures file: its answers counted per 10 s window instead of one entry per answer. */
function inWindows(t: Tally) {
  const windows: Record<string, Record<string, number>> = {};
  for (const [ms, status] of t.timeline) {
    const w = `${Math.floor(ms / 10_000) * 10}s`;
    const key = status === 0 ? 'transport' : String(status);
    windows[w] = { ...windows[w], [key]: (windows[w]?.[key] ?? 0) + 1 };
  }
  return { sent: t.sent, byStatus: t.byStatus, errors: t.errors, windows };
}

async function main(): Promise<void> {
  const options = {
    driveMs: setting('CHAOS_DURATION_S', 240) * 1000,
    clients: setting('CHAOS_CLIENTS', 8),
    faultEveryMs: setting('CHAOS_FAULT_EVERY_S', 15) * 1000,
    seed: setting('CHAOS_SEED', randomInt(1, 2 ** 31)),
    brokerFault: brokerFault(),
  };
  log(`resetting the chaos state (database leadrouter_chaos, Redis db 11 keys chaos:*, vhost leadrouter_chaos)`);
  await resetState(STATE);
  const report = await runChaos({
    ...options,
    env: stateEnv(STATE),
    // The product's retry policy (1, 5, 15, 60 s; 5 tries) and a gateway answer timeout below the slow school's delay.
    appEnv: { SUBMIT_ANSWER_TIMEOUT_MS: '2000' },
    vhost: STATE.vhost,
    amqpPrefix: STATE.amqpPrefix,
    warmupMs: 10_000,
    pauseMs: 3_000,
    brokerOutageMs: 10_000,
    settleMs: 180_000,
    log,
  });
  process.stdout.write(`\n${renderChaosReport(report)}\n`);
  const machine = {
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    loadavg: loadavg().map((l) => Math.round(l * 100) / 100),
  };
  const file = join(ROOT, 'bench', 'results', `chaos-${new Date().toISOString().slice(0, 10)}.json`);
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  const figures = {
    date: new Date().toISOString(),
    machine,
    ...report,
    searches: inWindows(report.searches),
    polls: inWindows(report.polls),
    submits: {
      ...inWindows(report.submits),
      taken: report.submits.taken,
      pendingAnswers: report.submits.pendingAnswers,
      decidedAfterPending: report.submits.decidedAfterPending,
    },
    statusReads: inWindows(report.statusReads),
  };
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  log(`figures written to ${file}`);
  if (report.failures.length > 0) process.exitCode = 1;
}

runBench(main, async () => {
  await stopAllApps();
  await closeChaosBrokers();
  removeVhost(STATE.vhost);
});
