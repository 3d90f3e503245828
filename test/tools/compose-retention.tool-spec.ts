import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { opsScript, retentionLoop as loop } from '../support/compose-retention';

/**
 * The shell loop of the Compose service `retention` (docker-compose.yml) runs
 * `npm run ops -- retention run` once a day at 03:17 UTC: here it runs under
 * /bin/sh with a fake clock (`date`), `sleep` and `node` on its PATH. The
 * service's settings are checked in test/unit/compose-retention.spec.ts.
 */

/** A directory of fake commands for the loop's PATH; removed by the caller. */
function fakes(commands: Record<string, string>): string {
  const bin = mkdtempSync(join(tmpdir(), 'lr-retention-loop-'));
  for (const [name, body] of Object.entries(commands)) {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  return bin;
}
const epoch = (iso: string) => Math.floor(Date.parse(iso) / 1000);
/** `gone` once a process has exited (a zombie, not yet reaped by whoever adopted it, has exited too), else its state letter. */
function runningState(pid: number): string {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
    return state === 'Z' || state === 'X' ? 'gone' : state;
  } catch {
    return 'gone';
  }
}

/** Runs the loop with fake `date` (at `clock`), `sleep` and `node` (exiting with `nodeExit`), until the `runs`-th run stops it. */
function runLoop(
  clock: string,
  opts: { runs: number; nodeExit?: number },
): { code: number | null; calls: string[]; stdout: string; stderr: string } {
  const bin = mkdtempSync(join(tmpdir(), 'lr-retention-log-'));
  const log = join(bin, 'calls.log');
  const path = fakes({
    date: `echo ${epoch(clock)}`,
    sleep: `echo "sleep $*" >> ${log}`,
    node: `echo "node $*" >> ${log}\n[ "$(grep -c '^node ' ${log})" -lt ${opts.runs} ] || kill -TERM $PPID\nexit ${opts.nodeExit ?? 0}`,
  });
  try {
    const r = spawnSync('/bin/sh', ['-c', loop], { env: { PATH: `${path}:/usr/bin:/bin` }, encoding: 'utf8', timeout: 10_000 });
    return { code: r.status, calls: readFileSync(log, 'utf8').trim().split('\n'), stdout: r.stdout, stderr: r.stderr };
  } finally {
    rmSync(bin, { recursive: true, force: true });
    rmSync(path, { recursive: true, force: true });
  }
}

describe('docker-compose.yml, service retention: its loop', () => {
  it('runs npm run ops -- retention run once a day at 03:17 UTC, sleeping until then', () => {
    const r = runLoop('2026-11-26T03:00:00Z', { runs: 2 });
    expect(r.code).toBe(0);
    expect(r.calls).toEqual(['sleep 1020', `${opsScript} retention run`, 'sleep 1020', `${opsScript} retention run`]);
    expect(r.stdout).toContain('retention: next run in 1020 s (daily at 03:17 UTC)');
    expect(runLoop('2026-11-26T03:17:01Z', { runs: 1 }).calls[0]).toBe(`sleep ${86_400 - 1}`);
    expect(runLoop('2026-11-26T03:17:00Z', { runs: 1 }).calls[0]).toBe('sleep 86400');
    expect(runLoop('2026-11-26T23:59:59Z', { runs: 1 }).calls[0]).toBe(`sleep ${3 * 3600 + 17 * 60 + 1}`);
  });

  it('goes on after a failed run, saying so on stderr', () => {
    const r = runLoop('2026-11-26T03:00:00Z', { runs: 2, nodeExit: 3 });
    expect(r.calls.filter((c) => c.startsWith('node '))).toHaveLength(2);
    expect(r.stderr).toContain('retention: the run failed (exit 3); the next one finishes its work');
  });

  it('stops at once on SIGTERM while it waits for the next run (docker compose stop), leaving no sleep behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lr-retention-pid-'));
    const pidFile = join(dir, 'sleep.pid');
    const path = fakes({
      date: `echo ${epoch('2026-11-26T03:00:00Z')}`,
      sleep: `echo $$ > ${pidFile}\nexec /bin/sleep "$@"`,
      node: 'exit 0',
    });
    try {
      const child = spawn('/bin/sh', ['-c', loop], { env: { PATH: `${path}:/usr/bin:/bin` }, stdio: 'ignore' });
      const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
      for (let i = 0; i < 50 && spawnSync('test', ['-s', pidFile]).status !== 0; i++) await new Promise((r) => setTimeout(r, 50));
      const sleeper = Number(readFileSync(pidFile, 'utf8'));
      const started = Date.now();
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(Date.now() - started).toBeLessThan(2000);
      await new Promise((r) => setTimeout(r, 100));
      expect(runningState(sleeper)).toBe('gone');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(path, { recursive: true, force: true });
    }
  });
});
