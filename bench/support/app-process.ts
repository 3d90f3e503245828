import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AppName } from '../../libs/config/src';

/**
 * The repository root: two levels up from here in the sources (bench/support),
 * three from the build (dist/bench/support). Found by its package.json so both work.
 */
function repositoryRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${from}`);
    dir = up;
  }
  return dir;
}

export const ROOT = repositoryRoot(__dirname);

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** A node child process serving HTTP on a port of its own. */
export interface RunningProcess {
  name: string;
  port: number;
  url: string;
  /** Where /health/* and /metrics answer: a port of their own for the gateway and the sandbox, a worker's one port otherwise. */
  managementUrl: string;
  child: ChildProcess;
  output: () => string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
  kill(): Promise<void>;
}

export interface RunningApp extends RunningProcess {
  app: AppName;
}

const running = new Set<RunningProcess>();

export interface ProcessSpec {
  /** Shown in errors. */
  name: string;
  /** The script node runs. */
  entry: string;
  env: Record<string, string>;
  /** The environment variable that carries the port to listen on. */
  portVar: string;
  /** The environment variable of a management port apart from `portVar`'s (MANAGEMENT_PORT); without it, the one port is both. */
  managementPortVar?: string;
  /** Answers 200 on the management port once the process is ready, e.g. `/health/ready`. */
  probePath: string;
  /** Said in the error when the probe never answers, e.g. `ready`. */
  probeLabel: string;
}

/**
 * Starts `node <entry>` on a free port with the given environment, and waits
 * until `probePath` answers 200. Every process started here is stopped by
 * stopAllApps().
 */
export async function startProcess(spec: ProcessSpec): Promise<RunningProcess> {
  const port = await freePort();
  const managementPort = spec.managementPortVar ? await freePort() : port;
  const child = spawn(process.execPath, [spec.entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      ...spec.env,
      [spec.portVar]: String(port),
      ...(spec.managementPortVar ? { [spec.managementPortVar]: String(managementPort) } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const logFile = process.env.BENCH_APP_LOG_DIR ? join(process.env.BENCH_APP_LOG_DIR, `${spec.name}-${child.pid}.log`) : undefined;
  if (logFile) mkdirSync(dirname(logFile), { recursive: true });
  const collect = (d: Buffer) => {
    if (logFile) appendFileSync(logFile, d);
    out += d.toString();
    if (out.length > 2_000_000) out = out.slice(-1_000_000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const managementUrl = `http://127.0.0.1:${managementPort}`;
  const handle: RunningProcess = {
    name: spec.name,
    port,
    url,
    managementUrl,
    child,
    output: () => out,
    async stop(graceMs = 10_000) {
      running.delete(handle);
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    async kill() {
      running.delete(handle);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
  running.add(handle);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${spec.name} exited with ${child.exitCode}:\n${out.slice(-4000)}`);
    try {
      const res = await fetch(`${managementUrl}${spec.probePath}`);
      if (res.ok) return handle;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await handle.kill();
  throw new Error(`${spec.name} not ${spec.probeLabel} within 30 s:\n${out.slice(-4000)}`);
}

/**
 * Starts one built app (dist/apps/<app>/src/main.js: `npm test` builds first) as
 * a child process with the given environment, and waits until `/health/<probe>`
 * answers 200 on its management port (`managementUrl`: the gateway's and the
 * sandbox's MANAGEMENT_PORT, a worker's HTTP_PORT). Every app started here is
 * stopped by stopAllApps().
 */
export async function startApp(app: AppName, env: Record<string, string>, probe: 'live' | 'ready' = 'ready'): Promise<RunningApp> {
  const entry = join(ROOT, 'dist', 'apps', app, 'src', 'main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run "npm run build" first`);
  const portVar = app === 'gateway' ? 'PORT' : app === 'sandbox' ? 'SANDBOX_PORT' : 'HTTP_PORT';
  const managementPortVar = app === 'gateway' || app === 'sandbox' ? 'MANAGEMENT_PORT' : undefined;
  const handle = await startProcess({
    name: app,
    entry,
    env,
    portVar,
    managementPortVar,
    probePath: `/health/${probe}`,
    probeLabel: probe,
  });
  return Object.assign(handle, { app });
}

export async function stopAllApps(): Promise<void> {
  await Promise.all([...running].map((a) => a.stop(5_000)));
}
