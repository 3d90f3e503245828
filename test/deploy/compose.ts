import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program with arguments (no shell), with an optional standard input and a time limit; never rejects on a non-zero exit. */
export function run(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number; cwd?: string } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd ?? ROOT,
      env: opts.env ?? process.env,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    if (opts.input !== undefined) {
      // A program may exit without reading its input (EPIPE): its exit code says how it went.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(opts.input);
    }
  });
}

/** Like run, but throws with the program's output when it exits non-zero. */
export async function must(cmd: string, args: string[], opts: Parameters<typeof run>[2] = {}): Promise<string> {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
  return r.stdout;
}

/** The host's CA bundle, handed to the image's build as the secret `build_ca` (the npm registry is reached through it here). */
export function hostCaBundle(): string | undefined {
  return [process.env.NODE_EXTRA_CA_CERTS, '/etc/ssl/certs/ca-certificates.crt'].find((f): f is string => !!f && existsSync(f));
}

/** One Compose project of the repository's docker-compose.yml, run unchanged with the knobs the file offers. */
export class ComposeProject {
  readonly env: NodeJS.ProcessEnv;

  constructor(
    readonly name: string,
    knobs: Record<string, string>,
  ) {
    this.env = { ...process.env, ...knobs };
  }

  compose(args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<Run> {
    return run('docker', ['compose', '-p', this.name, '-f', join(ROOT, 'docker-compose.yml'), ...args], { ...opts, env: this.env });
  }

  async mustCompose(args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<string> {
    const r = await this.compose(args, opts);
    if (r.code !== 0)
      throw new Error(`docker compose ${args.join(' ')} exited ${r.code}\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-6000)}`);
    return r.stdout;
  }

  docker(args: string[], opts: { timeoutMs?: number } = {}): Promise<string> {
    return must('docker', args, { ...opts, env: this.env });
  }

  /** The project's containers (running or not) of one service, by name, oldest replica first. */
  async containers(service: string): Promise<string[]> {
    const out = await this.docker([
      'ps',
      '-a',
      '--filter',
      `label=com.docker.compose.project=${this.name}`,
      '--filter',
      `label=com.docker.compose.service=${service}`,
      '--format',
      '{{.Names}}',
    ]);
    return out.split('\n').filter(Boolean).sort();
  }

  /** State, health, restart count and host pid of a container. */
  async inspect(container: string): Promise<{ status: string; health: string; restarts: number; pid: number; exitCode: number }> {
    const out = await this.docker([
      'inspect',
      '-f',
      '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}} {{.RestartCount}} {{.State.Pid}} {{.State.ExitCode}}',
      container,
    ]);
    const [status, health, restarts, pid, exitCode] = out.trim().split(' ');
    return { status, health, restarts: Number(restarts), pid: Number(pid), exitCode: Number(exitCode) };
  }

  /** Runs the ops CLI in a throw-away container of the image, as docs/deploy-compose.md tells an operator to. */
  ops(args: string[], mounts: string[] = []): Promise<string> {
    return this.mustCompose([
      'run',
      '--rm',
      '-T',
      '--no-deps',
      ...mounts.flatMap((m) => ['-v', m]),
      'migrate',
      'node',
      'dist/apps/ops/src/main.js',
      ...args,
    ]);
  }

  /** One SQL query's rows (psql -At), run inside the project's PostgreSQL. */
  async sql(query: string): Promise<string[]> {
    const out = await this.mustCompose(['exec', '-T', 'postgres', 'psql', '-U', 'postgres', '-d', 'leadrouter', '-At', '-c', query]);
    return out.split('\n').filter(Boolean);
  }

  /** GET of one path of an app container's own port, from inside it (worker ports are not published). */
  private fetchInside(container: string, port: number, path: string, read: 'text' | 'ok'): Promise<Run> {
    const then = read === 'text' ? 'r=>r.text()).then(t=>process.stdout.write(t)' : 'r=>process.exit(r.ok?0:1)';
    return run('docker', ['exec', container, 'node', '-e', `fetch('http://127.0.0.1:${port}${path}').then(${then},()=>process.exit(1))`], {
      env: this.env,
      timeoutMs: 10_000,
    });
  }

  /** A Prometheus text page of one app container. */
  async metrics(container: string, port: number): Promise<string> {
    const r = await this.fetchInside(container, port, '/metrics', 'text');
    if (r.code !== 0) throw new Error(`GET /metrics in ${container} failed (exit ${r.code}): ${r.stderr.slice(-2000)}`);
    return r.stdout;
  }

  /** Whether an app container answers 200 on /health/ready (false while it is down or starting). */
  async ready(container: string, port: number): Promise<boolean> {
    return (await this.fetchInside(container, port, '/health/ready', 'ok')).code === 0;
  }

  /** Everything Docker still holds of this project: containers, networks, volumes. */
  async leftovers(): Promise<{ containers: string[]; networks: string[]; volumes: string[] }> {
    const label = `label=com.docker.compose.project=${this.name}`;
    const list = async (args: string[]) => (await this.docker(args)).split('\n').filter(Boolean);
    return {
      containers: await list(['ps', '-a', '--filter', label, '--format', '{{.Names}}']),
      networks: await list(['network', 'ls', '--filter', label, '--format', '{{.Name}}']),
      volumes: await list(['volume', 'ls', '--filter', label, '--format', '{{.Name}}']),
    };
  }
}

/** The sum of a Prometheus counter's (or histogram's `_count`) samples whose labels all match. */
export function sumSamples(text: string, metric: string, labels: Record<string, RegExp> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`) && !line.startsWith(`${metric} `)) continue;
    const m = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const found = Object.fromEntries([...(m[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, re]) => re.test(found[k] ?? ''))) total += Number(m[2]);
  }
  return total;
}
