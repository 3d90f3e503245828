import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppName } from '../../libs/config/src';

const ROOT = join(__dirname, '..', '..');

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

export interface RunningApp {
  app: AppName;
  port: number;
  url: string;
  child: ChildProcess;
  output: () => string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
  kill(): Promise<void>;
}

const running = new Set<RunningApp>();

/**
 * Starts one built app (dist/apps/<app>/src/main.js: `npm test` builds first) as
 * a child process with the given environment, and waits until `/health/<probe>`
 * answers 200. Every app started here is stopped by stopAllApps().
 */
export async function startApp(app: AppName, env: Record<string, string>, probe: 'live' | 'ready' = 'ready'): Promise<RunningApp> {
  const entry = join(ROOT, 'dist', 'apps', app, 'src', 'main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run "npm run build" first`);
  const port = await freePort();
  const portVar = app === 'gateway' ? 'PORT' : app === 'sandbox' ? 'SANDBOX_PORT' : 'HTTP_PORT';
  const child = spawn(process.execPath, [entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env, [portVar]: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const collect = (d: Buffer) => {
    out += d.toString();
    if (out.length > 2_000_000) out = out.slice(-1_000_000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const handle: RunningApp = {
    app,
    port,
    url,
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
    if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode}:\n${out.slice(-4000)}`);
    try {
      const res = await fetch(`${url}/health/${probe}`);
      if (res.ok) return handle;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await handle.kill();
  throw new Error(`${app} not ${probe} within 30 s:\n${out.slice(-4000)}`);
}

export async function stopAllApps(): Promise<void> {
  await Promise.all([...running].map((a) => a.stop(5_000)));
}

/**
 * Stops every app this test file started, then deletes the RabbitMQ queues and
 * exchanges of its prefix (`env.AMQP_PREFIX`), so a test run leaves no quorum
 * queues behind in the test vhost.
 */
export async function stopAppsAndTopology(env: Record<string, string>): Promise<void> {
  await stopAllApps();
  const { topologyFor } = await import('../../libs/messaging/src/topology');
  const { loadConfig } = await import('../../libs/config/src');
  const { deleteTopology } = await import('../integration/messaging/support');
  await deleteTopology(topologyFor(loadConfig('gateway', env)));
}
