import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from './app-process';

/** Debian's Prometheus (package `prometheus`, as .ci/run installs it). */
export const PROMETHEUS_BINARY = process.env.PROMETHEUS_BINARY ?? '/usr/bin/prometheus';

export interface RunningPrometheus {
  url: string;
  /** Stops it (SIGTERM, SIGKILL after 5 s) and deletes its configuration and storage. Idempotent. */
  stop(): Promise<void>;
  output(): string;
}

/**
 * A Prometheus of this test run only: a temporary configuration and storage
 * directory, listening on a free loopback port, scraping `targets` as job
 * `lead-router` every second and evaluating `ruleFiles` every second. The
 * caller stops it (also on failure: stop() in afterAll).
 */
export async function startPrometheus(targets: string[], ruleFiles: string[]): Promise<RunningPrometheus> {
  if (!existsSync(PROMETHEUS_BINARY)) {
    throw new Error(
      `${PROMETHEUS_BINARY} is missing: install Debian's prometheus package ` +
        '(`DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus`, as .ci/run does), or set PROMETHEUS_BINARY.',
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'lr-prometheus-'));
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: ruleFiles,
    scrape_configs: [{ job_name: 'lead-router', metrics_path: '/metrics', static_configs: [{ targets }] }],
  };
  writeFileSync(join(dir, 'prometheus.yml'), stringify(config));
  const port = await freePort();
  const child: ChildProcess = spawn(
    PROMETHEUS_BINARY,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Never outlive the test process, whatever ends it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let stopped: Promise<void> | undefined;
  const url = `http://127.0.0.1:${port}`;
  const handle: RunningPrometheus = {
    url,
    output: () => out,
    stop: () =>
      (stopped ??= (async () => {
        process.removeListener('exit', killOnExit);
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
        }
        rmSync(dir, { recursive: true, force: true });
      })()),
  };
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      await handle.stop();
      throw new Error(`prometheus exited with ${child.exitCode}:\n${out.slice(-4000)}`);
    }
    try {
      if ((await fetch(`${url}/-/ready`)).ok) return handle;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await handle.stop();
  throw new Error(`prometheus not ready within 30 s:\n${out.slice(-4000)}`);
}

/** One instant query through the HTTP API: the result vector (a parse or evaluation error throws with Prometheus' message). */
export async function instantQuery(
  prometheusUrl: string,
  query: string,
): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const res = await fetch(`${prometheusUrl}/api/v1/query`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ query }),
  });
  const body = (await res.json()) as { status: string; error?: string; data?: { resultType: string; result: unknown } };
  if (body.status !== 'success') throw new Error(`${query}: ${body.error ?? res.status}`);
  if (body.data!.resultType === 'scalar') return [{ metric: {}, value: body.data!.result as [number, string] }];
  return body.data!.result as Array<{ metric: Record<string, string>; value: [number, string] }>;
}
