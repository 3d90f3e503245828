import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import Redis from 'ioredis';
import { personKeySecret } from '../../libs/domain/src';
import { ROOT } from './app-process';

/**
 * A bench owns its state and never touches the running system's or the
 * tests': its own database, Redis keys under its own prefix, and its own
 * RabbitMQ vhost with its own queue prefix, all dropped and recreated each run.
 */
export interface OwnState {
  databaseUrl: string;
  redisUrl: string;
  /** Every key the apps write starts with it; a reset deletes exactly these keys. */
  redisPrefix: string;
  vhost: string;
  amqpPrefix: string;
}

/** The person key secret of every bench state (a bench's apps run as in production, which requires one). */
export const BENCH_PERSON_KEY_SECRET = 'lead-router bench person key secret: bench state only';

/** The same, as the key functions take it (what a bench computes to compare with what its apps stored). */
export const BENCH_KEY_SECRET = personKeySecret(BENCH_PERSON_KEY_SECRET);

/**
 * The master key of every bench state (the apps that seal or open contact
 * data require one in production: docs/security.md): 32 bytes, published
 * here, bench state only.
 */
export const BENCH_MASTER_KEYS = `bench:${Buffer.from('lead-router bench master key: 32').toString('base64')}`;

/** The environment of every app a bench starts on `state` (and of the operator CLI). */
export function stateEnv(state: OwnState): Record<string, string> {
  return {
    NODE_ENV: 'production',
    PERSON_KEY_SECRET: BENCH_PERSON_KEY_SECRET,
    DATA_MASTER_KEYS: BENCH_MASTER_KEYS,
    DATABASE_URL: state.databaseUrl,
    REDIS_URL: state.redisUrl,
    REDIS_KEY_PREFIX: state.redisPrefix,
    AMQP_URL: `amqp://guest:guest@127.0.0.1:5672/${state.vhost}`,
    AMQP_PREFIX: state.amqpPrefix,
    LOG_LEVEL: 'warn',
  };
}

/** The search bench: database leadrouter_bench, Redis db 13 under `bench:`, vhost leadrouter_bench, queue prefix `bench`. */
export const BENCH_STATE: OwnState = {
  databaseUrl: 'postgres://postgres@127.0.0.1:5432/leadrouter_bench',
  redisUrl: 'redis://127.0.0.1:6379/13',
  redisPrefix: 'bench:',
  vhost: 'leadrouter_bench',
  amqpPrefix: 'bench',
};

export const benchEnv: Record<string, string> = stateEnv(BENCH_STATE);

/**
 * The apps' environment. With BENCH_CPU_PROF_DIR set, each writes a CPU
 * profile there when it stops; BENCH_APP_NODE_OPTIONS adds node options to
 * every app (to compare a runtime setting: docs/performance.md).
 */
export function appEnv(): Record<string, string> {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  const options = [
    ...(dir ? [`--require ${join(__dirname, 'cpu-profile.js')}`] : []),
    ...(process.env.BENCH_APP_NODE_OPTIONS ? [process.env.BENCH_APP_NODE_OPTIONS] : []),
  ];
  return { ...benchEnv, ...(dir ? { BENCH_CPU_PROF_DIR: dir } : {}), ...(options.length ? { NODE_OPTIONS: options.join(' ') } : {}) };
}

/** Runs the built operator CLI with `env`; its stdout, or an error with its stderr. */
export function opsWith(env: Record<string, string>, ...args: string[]): string {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'apps', 'ops', 'src', 'main.js'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`ops ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** The operator CLI against the search bench's state. */
export function ops(...args: string[]): string {
  return opsWith(benchEnv, ...args);
}

export function rabbitmqctl(...args: string[]): string {
  return execFileSync('rabbitmqctl', ['-q', ...args], { encoding: 'utf8', timeout: 120_000 });
}

function deleteVhostIfPresent(vhost: string): void {
  const vhosts = rabbitmqctl('list_vhosts')
    .split('\n')
    .map((l) => l.trim());
  if (vhosts.includes(vhost)) rabbitmqctl('delete_vhost', vhost);
}

/** Deletes the keys under `prefix` in the Redis db of `url` (and nothing else there). */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  if (!prefix) throw new Error('refusing to delete every key of a Redis db: give a prefix');
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const stream = redis.scanStream({ match: `${prefix}*`, count: 1000 });
    for await (const keys of stream as AsyncIterable<string[]>) if (keys.length > 0) await redis.unlink(...keys);
  } finally {
    redis.disconnect();
  }
}

/** A clean slate: the database dropped and migrated, the Redis keys under the prefix deleted, the vhost recreated empty. */
export async function resetState(state: OwnState): Promise<void> {
  const admin = new URL(state.databaseUrl);
  const name = admin.pathname.slice(1);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`unexpected database name ${name}`);
  admin.pathname = '/postgres';
  const pg = new Client({ connectionString: admin.toString() });
  await pg.connect();
  try {
    await pg.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await pg.end();
  }
  opsWith(stateEnv(state), 'db', 'migrate');
  await deleteRedisKeys(state.redisUrl, state.redisPrefix);
  deleteVhostIfPresent(state.vhost);
  rabbitmqctl('add_vhost', state.vhost);
  rabbitmqctl('set_permissions', '-p', state.vhost, 'guest', '.*', '.*', '.*');
}

export const resetBenchState = (): Promise<void> => resetState(BENCH_STATE);

/**
 * Messages in the vhost's queues, ready or delivered and not yet acked; only
 * queues named `<prefix>.…` when a prefix is given, and without the
 * dead-letter queues when `withDeadLetters` is false. `node`: a RabbitMQ node
 * other than the machine's default one (rabbitmqctl -n).
 */
export function queuedMessages(vhost: string, o: { prefix?: string; withDeadLetters?: boolean; node?: string } = {}): number {
  return rabbitmqctl(...(o.node ? ['-n', o.node] : []), 'list_queues', '-p', vhost, 'name', 'messages')
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter(([name, n]) => name && Number.isFinite(Number(n)))
    .filter(([name]) => o.prefix === undefined || name.startsWith(`${o.prefix}.`))
    .filter(([name]) => o.withDeadLetters !== false || !name.endsWith('.dlq'))
    .reduce((sum, [, n]) => sum + Number(n), 0);
}

/**
 * Waits until the system has no queued work left (searches the gateway gave up
 * on stay in the orchestrator's queue after an overload), so one phase's
 * backlog does not weigh on the next one's figures. Resolves with the time it
 * took; gives up after `maxMs`.
 */
export async function waitUntilDrained(maxMs: number, vhost = BENCH_STATE.vhost): Promise<{ ms: number; left: number }> {
  const started = Date.now();
  let left = queuedMessages(vhost);
  while (left > 0 && Date.now() - started < maxMs) {
    await new Promise((r) => setTimeout(r, 1000));
    left = queuedMessages(vhost);
  }
  return { ms: Date.now() - started, left };
}

/** waitUntilDrained on the bench's vhost, with a progress line when the system needed long (over 2 s) or gave up. */
export async function drainQueues(maxMs: number, log: (msg: string) => void): Promise<{ ms: number; left: number }> {
  const result = await waitUntilDrained(maxMs);
  if (result.ms > 2_000 || result.left > 0)
    log(`system drained its queues in ${(result.ms / 1000).toFixed(1)} s (${result.left} messages left)`);
  return result;
}

/** After a run: the vhost and every queue in it go; the database stays for a look until the next run. */
export function removeVhost(vhost: string): void {
  try {
    deleteVhostIfPresent(vhost);
  } catch {
    /* RabbitMQ unreachable: nothing more to do */
  }
}

export const removeBenchVhost = (): void => removeVhost(BENCH_STATE.vhost);
