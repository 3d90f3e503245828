import { cpus } from 'node:os';
import { RunningApp, startApp, stopAllApps } from './support/app-process';
import { OwnState, resetState, stateEnv } from './support/bench-state';
import { benchLog as log, runBench } from './support/bench-main';
import { keepAliveAgent, send } from './support/http-client';
import { cpuSecondsOf } from './support/process-cpu';

/**
 * `npm run bench:front-door`: the gateway's CPU per unauthenticated request
 * (no key), for a ~235 KB body of `{}`s against the body `{}`. The key is
 * checked before the body is read (docs/security.md, The front door), so the
 * two should cost the same; before, the large one was read and parsed first.
 *
 * CPU is the gateway process's own (utime + stime of /proc/<pid>/stat, around
 * each batch), per request. The two bodies alternate, REQUESTS sequential
 * requests a batch, RUNS runs of each; the figures are each run's, then min,
 * median and max. It prints figures and asserts nothing about them: on a
 * shared machine they move with the neighbours' load. The address budget is
 * made roomy so every request takes the whole refusal path (the key check and
 * the budget's Redis call) instead of the cheaper 429 once the budget is spent.
 *
 * Its own state: database leadrouter_bench_front_door, Redis db 13 under
 * `bench-front-door:`, vhost leadrouter_bench_front_door.
 */
const REQUESTS = Number(process.env.FRONT_DOOR_REQUESTS ?? 400);
const RUNS = 3;
const SEARCH = '/api/v1/engine/search';

const STATE: OwnState = {
  databaseUrl: 'postgres://postgres@127.0.0.1:5432/leadrouter_bench_front_door',
  redisUrl: 'redis://127.0.0.1:6379/13',
  redisPrefix: 'bench-front-door:',
  vhost: 'leadrouter_bench_front_door',
  amqpPrefix: 'bfd',
};

/** A JSON object of `{}`s, `{"k0":{},"k1":{},…}`, of about `bytes` bytes: many small values, the most parsing per byte. */
export function objectsBody(bytes: number): string {
  const parts: string[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const part = `"k${i}":{}`;
    parts.push(part);
    size += part.length + 1;
  }
  return `{${parts.join(',')}}`;
}

interface Batch {
  body: 'large' | 'empty';
  cpuUsPerRequest: number;
  wallMs: number;
  statuses: Record<string, number>;
}

async function batch(gateway: RunningApp, name: Batch['body'], body: string): Promise<Batch> {
  const agent = keepAliveAgent(1);
  const base = new URL(gateway.url);
  const statuses: Record<string, number> = {};
  const before = cpuSecondsOf(gateway.child.pid);
  const started = performance.now();
  for (let i = 0; i < REQUESTS; i++) {
    const answer = await send(agent, base, { method: 'POST', path: SEARCH, body }, 10_000);
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
  }
  const wallMs = performance.now() - started;
  const after = cpuSecondsOf(gateway.child.pid);
  agent.destroy();
  if (before === undefined || after === undefined) throw new Error('no /proc/<pid>/stat for the gateway: this bench needs Linux');
  return { body: name, cpuUsPerRequest: Math.round(((after - before) * 1e6) / REQUESTS), wallMs: Math.round(wallMs), statuses };
}

const spread = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0], median: sorted[Math.floor(sorted.length / 2)], max: sorted[sorted.length - 1] };
};

async function main(): Promise<void> {
  const large = objectsBody(235 * 1024);
  log(`state: ${STATE.databaseUrl}, ${STATE.redisUrl} ${STATE.redisPrefix}, vhost ${STATE.vhost}`);
  await resetState(STATE);
  const gateway = await startApp('gateway', {
    ...stateEnv(STATE),
    UNAUTHENTICATED_PER_MINUTE: '1000000',
    UNAUTHENTICATED_BURST: '1000000',
  });
  // Warm-up: the JIT and the connection pools, both bodies.
  await batch(gateway, 'empty', '{}');
  await batch(gateway, 'large', large);
  const batches: Batch[] = [];
  for (let run = 1; run <= RUNS; run++) {
    for (const [name, body] of [
      ['large', large],
      ['empty', '{}'],
    ] as const) {
      const b = await batch(gateway, name, body);
      log(`run ${run} ${name}: ${b.cpuUsPerRequest} µs CPU a request, ${JSON.stringify(b.statuses)}`);
      batches.push(b);
    }
  }
  const lines = [
    `# Gateway CPU per unauthenticated request (no key): a ${large.length}-byte body of {}s against {} (bench/front-door-bench.ts)`,
    `# ${REQUESTS} sequential POST ${SEARCH} a batch over one keep-alive connection; the bodies alternate, ${RUNS} runs each after a warm-up of each.`,
    `# CPU: utime + stime of the gateway process (/proc/<pid>/stat), per request, in µs. ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}.`,
    '# A shared, noisy machine (other engineers ran builds and tests meanwhile): read the spread, not one figure.',
    '',
    'run  body    cpu_us/req  wall_ms  statuses',
    ...batches.map(
      (b, i) =>
        `${String(Math.floor(i / 2) + 1).padEnd(4)} ${b.body.padEnd(7)} ${String(b.cpuUsPerRequest).padStart(10)}  ${String(b.wallMs).padStart(7)}  ${JSON.stringify(b.statuses)}`,
    ),
    '',
    '             min   median      max   (cpu_us/req)',
  ];
  for (const name of ['large', 'empty'] as const) {
    const s = spread(batches.filter((b) => b.body === name).map((b) => b.cpuUsPerRequest));
    lines.push(`${name.padEnd(7)} ${String(s.min).padStart(8)} ${String(s.median).padStart(8)} ${String(s.max).padStart(8)}`);
  }
  const ratios = [0, 1, 2].map((r) => batches[2 * r].cpuUsPerRequest / batches[2 * r + 1].cpuUsPerRequest);
  const rs = spread(ratios);
  lines.push(`large/empty ${rs.min.toFixed(2)} ${rs.median.toFixed(2)} ${rs.max.toFixed(2)}   (run by run)`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

runBench(main, async () => {
  await stopAllApps();
});
