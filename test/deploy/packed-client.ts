import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { must, ROOT, run } from './compose';

// The client package (packages/client) installed the way an affiliate installs
// it: packed by `npm pack` into a tarball (its prepack script builds dist/),
// installed into a fresh project with nothing of this repository around it,
// its quick start type-checked against the shipped declarations and run.

const CLIENT = join(ROOT, 'packages', 'client');

/** A program's standard output in a folder, killed after timeoutMs; throws with its output when it exits non-zero (or is killed). */
function mustExec(cmd: string, args: string[], cwd: string, timeoutMs: number): Promise<string> {
  return must(cmd, args, { cwd, timeoutMs });
}

/** The exact version the root package.json pins for a development dependency (typescript, @types/node). */
async function rootPin(name: string): Promise<string> {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
    devDependencies?: Record<string, string>;
    dependencies?: Record<string, string>;
  };
  const version = pkg.devDependencies?.[name] ?? pkg.dependencies?.[name];
  if (!version || !/^\d+\.\d+\.\d+$/.test(version))
    throw new Error(`the root package.json pins no exact version of ${name} (found ${version ?? 'none'})`);
  return version;
}

/**
 * Packs packages/client into workDir (`npm pack`, whose prepack builds dist/;
 * the root's `npm ci` must have run, its TypeScript compiles), checks that the
 * tarball carries the built code and declarations, installs it into a fresh
 * CommonJS project (workDir/consumer) with the root's pinned typescript and
 * @types/node, and compiles the package's quick start there with a strict
 * configuration that checks the installed declarations too (skipLibCheck off,
 * no DOM library: Node's types alone). Throws with npm's or tsc's output.
 */
export async function packAndInstallClient(workDir: string): Promise<{ projectDir: string; tarball: string }> {
  await mkdir(workDir, { recursive: true });
  const packed = await mustExec('npm', ['pack', '--json', '--pack-destination', workDir], CLIENT, 180_000);
  let listing: { filename: string; files: { path: string }[] }[];
  try {
    listing = JSON.parse(packed) as typeof listing;
  } catch {
    throw new Error(`npm pack printed no JSON listing:\n${packed.slice(-4000)}`);
  }
  const [pack] = listing;
  if (!pack) throw new Error(`npm pack listed no tarball:\n${packed.slice(-4000)}`);
  const files = pack.files.map((f) => f.path);
  const missing = ['dist/index.js', 'dist/index.d.ts'].filter((f) => !files.includes(f));
  if (missing.length) throw new Error(`the client tarball ${pack.filename} lacks ${missing.join(', ')}; it holds: ${files.join(', ')}`);
  const tarball = join(workDir, pack.filename);

  const projectDir = join(workDir, 'consumer');
  await rm(projectDir, { recursive: true, force: true });
  await mkdir(projectDir, { recursive: true });
  await writeFile(
    join(projectDir, 'package.json'),
    `${JSON.stringify({ name: 'lead-router-client-consumer', version: '0.0.0', private: true, type: 'commonjs' }, null, 2)}\n`,
  );
  const [typescript, typesNode] = await Promise.all([rootPin('typescript'), rootPin('@types/node')]);
  await mustExec(
    'npm',
    ['install', '--no-audit', '--no-fund', tarball, `typescript@${typescript}`, `@types/node@${typesNode}`],
    projectDir,
    300_000,
  );

  await copyFile(join(CLIENT, 'examples', 'quick-start.ts'), join(projectDir, 'quick-start.ts'));
  const tsconfig = {
    compilerOptions: {
      strict: true,
      module: 'commonjs',
      target: 'ES2022',
      lib: ['ES2022'],
      types: ['node'],
      skipLibCheck: false,
      outDir: 'dist',
    },
    files: ['quick-start.ts'],
  };
  await writeFile(join(projectDir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  const tsc = await run('npx', ['--no-install', 'tsc', '-p', '.'], { cwd: projectDir, timeoutMs: 180_000 });
  if (tsc.code !== 0)
    throw new Error(
      `the packed client's quick start does not type-check in a fresh project (tsc exited ${tsc.code}):\n${tsc.stdout}\n${tsc.stderr}`,
    );
  return { projectDir, tarball };
}

/**
 * Runs the compiled quick start of a project made by packAndInstallClient with
 * the given environment (and PATH, nothing else), at most 60 s; the one JSON
 * line it prints. Throws with its standard error when it fails or finds no offer.
 */
export async function runPackedExample(
  projectDir: string,
  env: { LEAD_ROUTER_URL: string; LEAD_ROUTER_API_KEY: string; LEAD_ROUTER_CAMPAIGN_ID: string; LEAD_ROUTER_AFFILIATE_ID: string },
): Promise<{ offers: number; status: number; code: string; svc_lead_id: string | null }> {
  const r = await run(process.execPath, [join('dist', 'quick-start.js')], {
    cwd: projectDir,
    timeoutMs: 60_000,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  if (r.code !== 0) throw new Error(`the packed quick start exited ${r.code}\n${r.stderr.slice(-4000)}\n${r.stdout.slice(-2000)}`);
  const line = r.stdout.trim().split('\n').pop() ?? '';
  let printed: unknown;
  try {
    printed = JSON.parse(line);
  } catch {
    throw new Error(`the packed quick start printed no JSON line:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`);
  }
  const { offers, status, code, svc_lead_id } = (printed ?? {}) as {
    offers?: unknown;
    status?: unknown;
    code?: unknown;
    svc_lead_id?: unknown;
  };
  if (
    typeof offers !== 'number' ||
    typeof status !== 'number' ||
    typeof code !== 'string' ||
    !(typeof svc_lead_id === 'string' || svc_lead_id === null)
  ) {
    throw new Error(`the packed quick start printed ${line} (no offer submitted?)\n${r.stderr.slice(-2000)}`);
  }
  return { offers, status, code, svc_lead_id };
}
