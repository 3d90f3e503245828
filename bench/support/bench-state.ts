import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import Redis from 'ioredis';
import { ROOT } from './app-process';

/**
 * The bench owns its state and never touches the running system's or the
 * tests': database leadrouter_bench, Redis db 13 under the prefix `bench:`,
 * RabbitMQ vhost leadrouter_bench with the queue prefix `bench`.
 */
export const BENCH_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/leadrouter_bench';
export const BENCH_REDIS_URL = 'redis://127.0.0.1:6379/13';
export const BENCH_REDIS_PREFIX = 'bench:';
export const BENCH_VHOST = 'leadrouter_bench';

/** The environment of every app the bench starts (and of the operator CLI). */
export const benchEnv: Record<string, string> = {
  NODE_ENV: 'production',
  DATABASE_URL: BENCH_DATABASE_URL,
  REDIS_URL: BENCH_REDIS_URL,
  REDIS_KEY_PREFIX: BENCH_REDIS_PREFIX,
  AMQP_URL: `amqp://guest:guest@127.0.0.1:5672/${BENCH_VHOST}`,
  AMQP_PREFIX: 'bench',
  LOG_LEVEL: 'warn',
};

/** The apps' environment; with BENCH_CPU_PROF_DIR set, each writes a CPU profile there when it stops (docs/performance.md). */
export function appEnv(): Record<string, string> {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  if (!dir) return benchEnv;
  return { ...benchEnv, BENCH_CPU_PROF_DIR: dir, NODE_OPTIONS: `--require ${join(__dirname, 'cpu-profile.js')}` };
}

/** Runs the built operator CLI against the bench state; its stdout, or an error with its stderr. */
export function ops(...args: string[]): string {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'apps', 'ops', 'src', 'main.js'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...benchEnv },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`ops ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

function rabbitmqctl(...args: string[]): string {
  return execFileSync('rabbitmqctl', ['-q', ...args], { encoding: 'utf8', timeout: 120_000 });
}

function deleteVhostIfPresent(): void {
  const vhosts = rabbitmqctl('list_vhosts').split('\n').map((l) => l.trim());
  if (vhosts.includes(BENCH_VHOST)) rabbitmqctl('delete_vhost', BENCH_VHOST);
}

/** A clean slate: the bench database dropped and migrated, Redis db 13 flushed, the vhost recreated empty. */
export async function resetBenchState(): Promise<void> {
  const admin = new URL(BENCH_DATABASE_URL);
  admin.pathname = '/postgres';
  const pg = new Client({ connectionString: admin.toString() });
  await pg.connect();
  try {
    await pg.query('DROP DATABASE IF EXISTS leadrouter_bench WITH (FORCE)');
  } finally {
    await pg.end();
  }
  ops('db', 'migrate');
  const redis = new Redis(BENCH_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  await redis.flushdb();
  redis.disconnect();
  deleteVhostIfPresent();
  rabbitmqctl('add_vhost', BENCH_VHOST);
  rabbitmqctl('set_permissions', '-p', BENCH_VHOST, 'guest', '.*', '.*', '.*');
}

/** Messages waiting or in flight in the bench vhost's queues. */
function queuedMessages(): number {
  return rabbitmqctl('list_queues', '-p', BENCH_VHOST, 'messages')
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((n) => Number.isFinite(n))
    .reduce((a, b) => a + b, 0);
}

/**
 * Waits until the system has no queued work left (searches the gateway gave up
 * on stay in the orchestrator's queue after an overload), so one phase's
 * backlog does not weigh on the next one's figures. Resolves with the time it
 * took; gives up after `maxMs`.
 */
export async function waitUntilDrained(maxMs: number): Promise<{ ms: number; left: number }> {
  const started = Date.now();
  let left = queuedMessages();
  while (left > 0 && Date.now() - started < maxMs) {
    await new Promise((r) => setTimeout(r, 1000));
    left = queuedMessages();
  }
  return { ms: Date.now() - started, left };
}

/** After the run: the vhost and every queue in it go; the database stays for a look until the next run. */
export function removeBenchVhost(): void {
  try {
    deleteVhostIfPresent();
  } catch {
    /* RabbitMQ unreachable: nothing more to do */
  }
}
