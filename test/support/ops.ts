import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Runs the built operator CLI (`npm run ops -- …`) against the given environment. */
export function runOps(args: string[], env: Record<string, string>): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'apps', 'ops', 'src', 'main.js'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A catalog written to a file of its own, for `catalog apply` or `catalog simulate`; returns its path. */
export function writeCatalogFile(catalog: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'lr-catalog-')), 'catalog.json');
  writeFileSync(file, JSON.stringify(catalog, null, 2));
  return file;
}

export function applyCatalog(catalog: unknown, env: Record<string, string>): void {
  const r = runOps(['catalog', 'apply', writeCatalogFile(catalog)], env);
  if (r.code !== 0) throw new Error(`catalog apply failed (${r.code}): ${r.stderr}`);
}

export function issueKey(affiliateId: string, env: Record<string, string>, extra: string[] = []): { id: string; key: string } {
  return issued(['--affiliate', affiliateId, ...extra], env);
}

/** A school's key to the buyer API (docs/returns.md). */
export function issueSchoolKey(schoolId: string, env: Record<string, string>, extra: string[] = []): { id: string; key: string } {
  return issued(['--school', schoolId, ...extra], env);
}

function issued(args: string[], env: Record<string, string>): { id: string; key: string } {
  const r = runOps(['keys', 'issue', ...args], env);
  if (r.code !== 0) throw new Error(`keys issue failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as { id: string; key: string };
}
