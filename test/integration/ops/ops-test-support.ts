import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { runCli } from '../../../apps/ops/src/cli';
import type { CliIo } from '../../../apps/ops/src/io';
import { testEnv, uniqueSuffix } from '../../support/test-env';

export const FIXTURES = join(__dirname, '../../fixtures');
/** The demo catalog that `npm run start:all` applies (sandbox URLs). */
export const DEMO_CATALOG = join(__dirname, '../../../demo/catalog.json');

const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * A catalog file as the JSON a test edits by hand before applying it: unknown
 * keys, wrong types and missing fields included, since a refused file is often
 * the point. No type can describe every such edit, hence any.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a hand-edited, deliberately malformed JSON document (see above)
export type CatalogJson = any;

/**
 * A fixture catalog with every UUID replaced by a fresh one (consistently), so
 * this test file owns its rows in the shared test database and nobody else's
 * apply of the same fixture can disturb it.
 */
export function freshCatalog(fixture: string): CatalogJson {
  const text = readFileSync(fixture === 'demo-catalog.json' ? DEMO_CATALOG : join(FIXTURES, fixture), 'utf8');
  const map = new Map<string, string>();
  return JSON.parse(
    text.replace(UUID_RE, (id) => {
      const key = id.toLowerCase();
      if (!map.has(key)) map.set(key, randomUUID());
      return map.get(key)!;
    }),
  );
}

/** One temporary directory per test file, removed when the file is done. */
const tempDir = mkdtempSync(join(tmpdir(), 'lr-ops-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));
let tempCount = 0;

export function writeTemp(name: string, content: unknown): string {
  const file = join(tempDir, `${++tempCount}-${name}`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the operator CLI in-process, as `npm run ops -- <args>` would, against the test database. */
export function ops(...args: string[]): Promise<CliRun> {
  return opsIn(testEnv(uniqueSuffix()), args);
}

/** Runs the operator CLI in-process against a given environment (e.g. a test's AMQP_PREFIX), with optional extra io (a progress stream). */
export async function opsIn(env: Record<string, string>, args: string[], io: Partial<CliIo> = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { io: { out: (s) => (stdout += `${s}\n`), err: (s) => (stderr += `${s}\n`), ...io }, env });
  return { code, stdout, stderr };
}

/** Every id of a catalog file, by kind. */
export function idsOf(catalog: CatalogJson) {
  const list = (k: string) => ((catalog[k] ?? []) as Array<{ id: string }>).map((x) => x.id);
  return {
    affiliates: list('affiliates'),
    schools: list('schools'),
    partners: list('partners'),
    offers: list('offers'),
    campaigns: list('campaigns'),
  };
}

/**
 * The full rows (timestamps included) of everything a catalog touches, in a
 * stable order: equal dumps mean nothing was written.
 */
export async function dumpCatalogRows(ds: DataSource, catalog: CatalogJson): Promise<Record<string, unknown[]>> {
  const ids = idsOf(catalog);
  const q = async (sql: string, params: unknown[]) =>
    ((await ds.query(`SELECT to_jsonb(t) AS row FROM (${sql}) t`, params)) as Array<{ row: unknown }>).map((r) => r.row);
  return {
    affiliates: await q('SELECT * FROM affiliates WHERE id = ANY($1::uuid[]) ORDER BY id', [ids.affiliates]),
    schools: await q('SELECT * FROM schools WHERE id = ANY($1::uuid[]) ORDER BY id', [ids.schools]),
    partners: await q('SELECT * FROM partners WHERE id = ANY($1::uuid[]) ORDER BY id', [ids.partners]),
    offers: await q('SELECT * FROM offers WHERE id = ANY($1::uuid[]) ORDER BY id', [ids.offers]),
    programs: await q('SELECT * FROM programs WHERE offer_id = ANY($1::uuid[]) ORDER BY offer_id, value', [ids.offers]),
    questions: await q('SELECT * FROM questions WHERE offer_id = ANY($1::uuid[]) ORDER BY offer_id, name', [ids.offers]),
    caps: await q('SELECT * FROM caps WHERE offer_id = ANY($1::uuid[]) ORDER BY id', [ids.offers]),
    campaigns: await q('SELECT * FROM campaigns WHERE id = ANY($1::uuid[]) ORDER BY id', [ids.campaigns]),
    campaign_offers: await q('SELECT * FROM campaign_offers WHERE campaign_id = ANY($1::uuid[]) ORDER BY campaign_id, offer_id', [
      ids.campaigns,
    ]),
  };
}
