import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DataSource } from 'typeorm';
import { createDataSource } from '@lr/persistence';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../../support/test-env';
import { freshCatalog, writeTemp } from './ops-test-support';

const ROOT = resolve(__dirname, '../../..');

/**
 * Compiles the CLI exactly as `npm run build` does (tsc + tsc-alias with
 * tsconfig.build.json), but only apps/ops and what it imports, into a
 * temporary directory: the shared dist/ is left alone.
 */
function buildCli(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lr-ops-build-'));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.build.json'),
      compilerOptions: { outDir: 'dist', rootDir: ROOT, sourceMap: false, typeRoots: [join(ROOT, 'node_modules/@types')] },
      include: [join(ROOT, 'apps/ops/src/main.ts')],
      exclude: [],
    }),
  );
  const bin = (name: string) => join(ROOT, 'node_modules/.bin', name);
  execFileSync(bin('tsc'), ['-p', join(dir, 'tsconfig.json')], { cwd: ROOT, stdio: 'pipe' });
  execFileSync(bin('tsc-alias'), ['-p', join(dir, 'tsconfig.json')], { cwd: ROOT, stdio: 'pipe' });
  return join(dir, 'dist/apps/ops/src/main.js');
}

describe('the built operator CLI (node …/apps/ops/src/main.js)', () => {
  let main: string;
  let ds: DataSource;
  const env = { ...process.env, ...testEnv(uniqueSuffix()), NODE_PATH: join(ROOT, 'node_modules') };
  const cli = (...args: string[]) => spawnSync(process.execPath, [main, ...args], { env, encoding: 'utf8', timeout: 60_000 });

  beforeAll(async () => {
    main = buildCli();
    ds = createDataSource({ url: TEST_DATABASE_URL, poolSize: 1, timeoutMs: 5000 });
    await ds.initialize();
  }, 180_000);

  afterAll(async () => {
    await ds?.destroy();
    if (main) rmSync(resolve(dirname(main), '../../../..'), { recursive: true, force: true });
  });

  it('db migrate, catalog apply, keys issue/list/revoke; results on stdout, exit codes', async () => {
    const migrate = cli('db', 'migrate');
    expect(migrate.stderr).toBe('');
    expect(migrate.status).toBe(0);
    expect(migrate.stdout).toMatch(/^(No pending migrations\.|applied \w+)/);

    const catalog = freshCatalog('catalog.example.json');
    const file = writeTemp('catalog.json', catalog);
    const apply = cli('catalog', 'apply', file);
    expect(apply.status).toBe(0);
    expect(apply.stdout).toMatch(/offers\s+2 created/);
    const again = cli('catalog', 'apply', file);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/\(no changes\)/);

    const affiliate = catalog.affiliates[0].id;
    const issue = cli('keys', 'issue', '--affiliate', affiliate, '--limit', 'results=900/300');
    expect(issue.stderr).toBe('');
    expect(issue.status).toBe(0);
    expect(issue.stdout).toMatch(/^\{[^\n]*\}\n$/);
    const issued = JSON.parse(issue.stdout);
    expect(issued.key).toMatch(/^lr_[A-Za-z0-9_-]{43}$/);
    const [row] = await ds.query('SELECT key_hash, limits FROM api_keys WHERE id = $1', [issued.id]);
    expect(row.key_hash).toBe(createHash('sha256').update(issued.key).digest('hex'));
    expect(row.limits).toEqual({ results: { per_minute: 900, burst: 300 } });

    const list = cli('keys', 'list', '--affiliate', affiliate);
    expect(list.status).toBe(0);
    expect(list.stdout).not.toContain(issued.key);
    expect(list.stdout).not.toContain(row.key_hash);
    expect(JSON.parse(list.stdout.trim())).toMatchObject({ id: issued.id, prefix: issued.key.slice(0, 8), state: 'active' });

    const revoke = cli('keys', 'revoke', issued.id);
    expect(revoke.status).toBe(0);
    const [revoked] = await ds.query('SELECT revoked_at FROM api_keys WHERE id = $1', [issued.id]);
    expect(revoked.revoked_at).not.toBeNull();
  });

  it('errors go to stderr with a non-zero exit code', () => {
    const broken = freshCatalog('catalog.example.json');
    broken.offers[0].programs[1].value = 5;
    const refused = cli('catalog', 'apply', writeTemp('broken.json', broken));
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/offers\[0\]\.programs\[1\]\.value: must be a string/);

    const badLimit = cli('keys', 'issue', '--affiliate', broken.affiliates[0].id, '--limit', 'search=fast');
    expect(badLimit.status).toBe(1);
    expect(badLimit.stdout).toBe('');
    expect(badLimit.stderr).toMatch(/--limit "search=fast"/);

    const usage = cli('keys', 'frobnicate');
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/unknown command 'frobnicate'/);

    const noDb = spawnSync(process.execPath, [main, 'keys', 'list', '--affiliate', broken.affiliates[0].id], {
      env: { ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/leadrouter_test' },
      encoding: 'utf8',
    });
    expect(noDb.status).toBe(1);
    expect(noDb.stderr).toMatch(/cannot connect to PostgreSQL/);
  });

  it('dlq: the DLQs of the topology from the broker, a name outside it refused (1), a purge without --yes refused (2)', () => {
    const prefix = (env as Record<string, string>).AMQP_PREFIX;
    const list = cli('dlq', 'list', '--json');
    expect(list.stderr).toBe('');
    expect(list.status).toBe(0);
    // Nothing of this prefix has connected, so no queue is declared yet.
    expect(JSON.parse(list.stdout)).toEqual(
      ['search-orchestrator', 'checks', 'partner-adapter', 'delivery'].map((c) => ({
        queue: `${prefix}.${c}.dlq`,
        consumer: c,
        declared: false,
        messages: null,
        consumers: null,
      })),
    );
    const outside = cli('dlq', 'show', `${prefix}.delivery`);
    expect(outside.status).toBe(1);
    expect(outside.stderr).toContain(`is not a dead-letter queue of this topology; the DLQs are: ${prefix}.search-orchestrator.dlq`);
    const unsure = cli('dlq', 'purge', `${prefix}.delivery.dlq`);
    expect(unsure.status).toBe(2);
    expect(unsure.stdout).toBe('');
    expect(unsure.stderr).toMatch(/refusing to purge .* without --yes/);
    const missing = cli('dlq', 'show', `${prefix}.delivery.dlq`);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/does not exist on the broker/);
  });
});
