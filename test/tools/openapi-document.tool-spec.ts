import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

/*
 * The affiliate API's OpenAPI document as committed (packages/client/openapi.json,
 * exported from the gateway's decorators; test/e2e/openapi.e2e-spec.ts checks it
 * is the document the gateway serves) and the client generated from it:
 * - Redocly CLI and Spectral (its built-in `spectral:oas` ruleset) lint it
 *   clean with the committed redocly.yaml and .spectral.yaml, with no network;
 * - the generated client is exactly what the pinned @hey-api/openapi-ts makes
 *   of it with the committed configuration (regenerated into a temporary
 *   folder and compared file by file).
 * Nothing here needs a build or a running service; what needs no program is
 * checked in test/unit/openapi-document.spec.ts.
 */

const ROOT = join(__dirname, '..', '..');
const DOCUMENT = 'packages/client/openapi.json';
const GENERATED = join(ROOT, 'packages', 'client', 'src', 'generated');
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

/** Runs a tool of node_modules/.bin from the repository root, with nothing that would reach the network. */
function run(tool: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(bin(tool), args, {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const abs = join(dir, name);
    return statSync(abs).isDirectory() ? filesUnder(abs) : [abs];
  });
}

describe('the OpenAPI document and its client', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'lr-openapi-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('passes Redocly CLI lint (recommended, redocly.yaml): no error, no warning', () => {
    const r = run('redocly', ['lint', '--format=json']);
    const report = JSON.parse(r.stdout) as { totals: Record<string, number>; problems: Array<{ ruleId: string; message: string }> };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
    expect(r.code).toBe(0);
  }, 60_000);

  it('passes Spectral lint (spectral:oas, .spectral.yaml): no result of any severity', () => {
    const out = join(scratch, 'spectral.json');
    const r = run('spectral', [
      'lint',
      DOCUMENT,
      '--ruleset',
      '.spectral.yaml',
      '--format',
      'json',
      '--output',
      out,
      '--fail-severity',
      'hint',
    ]);
    const results = JSON.parse(readFileSync(out, 'utf8')) as Array<{ code: string; message: string; path: string[] }>;
    expect(results.map((x) => `${x.code} at ${x.path.join('.')}: ${x.message}`)).toEqual([]);
    expect([r.code, r.stderr]).toEqual([0, '']);
  }, 60_000);

  it('generates exactly the committed client (packages/client/src/generated) with the pinned @hey-api/openapi-ts', () => {
    const out = join(scratch, 'generated');
    const r = run('openapi-ts', ['-f', 'packages/client/openapi-ts.config.ts', '--silent'], { CLIENT_GENERATED_DIR: out });
    expect([r.code, r.stderr]).toEqual([0, '']);
    const fresh = filesUnder(out)
      .map((f) => relative(out, f))
      .sort();
    const committed = filesUnder(GENERATED)
      .map((f) => relative(GENERATED, f))
      .sort();
    expect(committed).toEqual(fresh);
    for (const file of fresh) {
      // A difference means openapi.json, the configuration or the generator changed without `npm run client:generate`.
      expect([file, readFileSync(join(GENERATED, file), 'utf8') === readFileSync(join(out, file), 'utf8')]).toEqual([file, true]);
    }
  }, 60_000);
});
