import { createHash, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ApiKeyRepository, createDataSource } from '@lr/persistence';
import { applyCatalog } from '../../../apps/ops/src/catalog/apply-catalog';
import { issueApiKey, listApiKeys, revokeApiKey } from '../../../apps/ops/src/keys/api-keys.service';
import { TEST_DATABASE_URL } from '../../support/test-env';
import { freshCatalog, ops } from './ops-test-support';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const KEY_RE = /^lr_[A-Za-z0-9_-]{43}$/;

describe('ops keys', () => {
  let ds: DataSource;
  let affiliateId: string;
  /** An affiliate no test issues a key to: refused commands must leave it without keys. */
  let keylessAffiliateId: string;

  beforeAll(async () => {
    ds = createDataSource({ url: TEST_DATABASE_URL, poolSize: 2, timeoutMs: 5000 });
    await ds.initialize();
    const catalog = freshCatalog('catalog.example.json');
    expect((await applyCatalog(ds, catalog)).ok).toBe(true);
    affiliateId = catalog.affiliates[0].id;
    keylessAffiliateId = randomUUID();
    expect((await applyCatalog(ds, { affiliates: [{ id: keylessAffiliateId, name: 'Keyless', status: 'active' }] })).ok).toBe(true);
  });

  afterAll(async () => {
    await ds?.destroy();
  });

  it('issue prints exactly one JSON object {id, key}; only the SHA-256 of the key is stored', async () => {
    const run = await ops('keys', 'issue', '--affiliate', affiliateId);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const issued = JSON.parse(lines[0]);
    expect(Object.keys(issued)).toEqual(['id', 'key']);
    expect(issued.key).toMatch(KEY_RE);

    const rows = await ds.query('SELECT * FROM api_keys WHERE id = $1', [issued.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      affiliate_id: affiliateId,
      key_hash: sha256(issued.key),
      key_prefix: issued.key.slice(0, 8),
      expires_at: null,
      revoked_at: null,
      limits: {},
    });
    // The raw key is nowhere in the row.
    expect(JSON.stringify(rows[0])).not.toContain(issued.key);
    expect(JSON.stringify(rows[0])).not.toContain(issued.key.slice(8));

    const found = await new ApiKeyRepository(ds).findByHash(sha256(issued.key));
    expect(found).toEqual({
      id: issued.id,
      affiliateId,
      schoolId: null,
      affiliateStatus: 'active',
      expiresAt: null,
      revokedAt: null,
      limits: {},
    });
  });

  it('issue parses --limit (repeatable) and --expires-at', async () => {
    const run = await ops(
      'keys',
      'issue',
      '--affiliate',
      affiliateId,
      '--expires-at',
      '2031-06-30T12:00:00Z',
      '--limit',
      'search=120/20',
      '--limit',
      'dupe-check=10/5',
    );
    expect(run.code).toBe(0);
    const issued = JSON.parse(run.stdout);
    const [row] = await ds.query('SELECT expires_at, limits FROM api_keys WHERE id = $1', [issued.id]);
    expect(row.expires_at.toISOString()).toBe('2031-06-30T12:00:00.000Z');
    expect(row.limits).toEqual({ search: { per_minute: 120, burst: 20 }, 'dupe-check': { per_minute: 10, burst: 5 } });
    expect(await new ApiKeyRepository(ds).findByHash(sha256(issued.key))).toMatchObject({
      expiresAt: new Date('2031-06-30T12:00:00Z'),
      limits: { search: { perMinute: 120, burst: 20 }, 'dupe-check': { perMinute: 10, burst: 5 } },
    });
  });

  it.each([
    [['--affiliate', randomUUID()], /unknown affiliate/],
    [['--affiliate', 'acme'], /--affiliate "acme": must be a UUID/],
    [['--limit', 'polls=1/1'], /unknown endpoint "polls" \(endpoints: search, results, leads, dupe-check, opt-outs\)/],
    [['--limit', 'search=60'], /expected <endpoint>=<per-minute>\/<burst>/],
    [['--limit', 'search=0/10'], /between 1 and/],
    [['--limit', 'search=60/10', '--limit', 'search=30/5'], /limited twice/],
    [['--expires-at', '2020-01-01'], /must be in the future/],
    [['--expires-at', 'tomorrow'], /expected an ISO 8601 date/],
    [['--expires-at', '2031-02-30'], /not a real date/],
    [['--expires-at', '2031-06-30T12:00:00'], /with a zone/],
  ])('issue refuses %j, issuing nothing', async (args, message) => {
    const argv = args.includes('--affiliate') ? args : ['--affiliate', keylessAffiliateId, ...args];
    const run = await ops('keys', 'issue', ...argv);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
    expect(await ds.query('SELECT id FROM api_keys WHERE affiliate_id = $1', [keylessAffiliateId])).toEqual([]);
  });

  it('issue without --affiliate is a usage error', async () => {
    const run = await ops('keys', 'issue');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/required option '--affiliate <uuid>' not specified/);
  });

  describe("a school's key (the buyer API: docs/returns.md)", () => {
    let schoolId: string;
    beforeAll(async () => {
      schoolId = randomUUID();
      expect((await applyCatalog(ds, { schools: [{ id: schoolId, name: 'Keys school' }] })).ok).toBe(true);
    });

    it("issue --school stores a key of the school (no affiliate) with its own endpoint's limit; list --school shows it", async () => {
      const run = await ops('keys', 'issue', '--school', schoolId, '--limit', 'returns=120/30');
      expect([run.code, run.stderr]).toEqual([0, '']);
      const issued = JSON.parse(run.stdout);
      expect(Object.keys(issued)).toEqual(['id', 'key']);
      expect(await new ApiKeyRepository(ds).findByHash(sha256(issued.key))).toEqual({
        id: issued.id,
        affiliateId: null,
        schoolId,
        affiliateStatus: null,
        expiresAt: null,
        revokedAt: null,
        limits: { returns: { perMinute: 120, burst: 30 } },
      });
      const listed = await ops('keys', 'list', '--school', schoolId);
      expect(JSON.parse(listed.stdout)).toEqual({
        id: issued.id,
        school_id: schoolId,
        prefix: issued.key.slice(0, 8),
        state: 'active',
        created_at: expect.any(String),
        expires_at: null,
        revoked_at: null,
        limits: { returns: { per_minute: 120, burst: 30 } },
      });
    });

    it.each([
      [['--school', randomUUID()], 1, /unknown school/],
      [['--school', 'northfield'], 1, /--school "northfield": must be a UUID/],
      [['--limit', 'search=1/1'], 1, /unknown endpoint "search" \(endpoints: returns\)/],
      [['--affiliate', randomUUID()], 2, /cannot be used together/],
    ])('issue refuses %j, issuing nothing', async (args, code, message) => {
      const argv = args[0] === '--school' ? args : ['--school', schoolId, ...args];
      const before = await ds.query('SELECT count(*)::int AS n FROM api_keys WHERE school_id = $1', [schoolId]);
      const run = await ops('keys', 'issue', ...argv);
      expect([run.code, run.stdout]).toEqual([code, '']);
      expect(run.stderr).toMatch(message);
      expect(await ds.query('SELECT count(*)::int AS n FROM api_keys WHERE school_id = $1', [schoolId])).toEqual(before);
    });

    it("an affiliate's key takes no limit of the buyer API", async () => {
      const run = await ops('keys', 'issue', '--affiliate', keylessAffiliateId, '--limit', 'returns=1/1');
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/unknown endpoint "returns" \(endpoints: search, results, leads, dupe-check, opt-outs\)/);
    });
  });

  it('revoke sets revoked_at once; the key is then found revoked', async () => {
    const issued = await issueApiKey(ds, { affiliateId });
    const run = await ops('keys', 'revoke', issued.id);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.id).toBe(issued.id);
    const [row] = await ds.query('SELECT revoked_at FROM api_keys WHERE id = $1', [issued.id]);
    expect(row.revoked_at.toISOString()).toBe(out.revoked_at);
    expect((await new ApiKeyRepository(ds).findByHash(sha256(issued.key)))?.revokedAt).toEqual(row.revoked_at);

    const again = await ops('keys', 'revoke', issued.id);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).revoked_at).toBe(out.revoked_at);
    expect(again.stderr).toMatch(/already revoked/);

    const unknown = await ops('keys', 'revoke', randomUUID());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown key/);
    const bad = await ops('keys', 'revoke', 'not-a-uuid');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/must be a UUID/);
  });

  it('list shows id, prefix, dates, state and limits, never the key or its hash', async () => {
    const catalog = freshCatalog('catalog.example.json');
    await applyCatalog(ds, catalog);
    const owner = catalog.affiliates[0].id;
    const a = await issueApiKey(ds, { affiliateId: owner, limits: { leads: { perMinute: 240, burst: 60 } } });
    const b = await issueApiKey(ds, { affiliateId: owner, expiresAt: new Date('2032-01-01T00:00:00Z') });
    await revokeApiKey(ds, b.id);

    const run = await ops('keys', 'list', '--affiliate', owner);
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      {
        id: a.id,
        affiliate_id: owner,
        prefix: a.key.slice(0, 8),
        state: 'active',
        created_at: expect.any(String),
        expires_at: null,
        revoked_at: null,
        limits: { leads: { per_minute: 240, burst: 60 } },
      },
      {
        id: b.id,
        affiliate_id: owner,
        prefix: b.key.slice(0, 8),
        state: 'revoked',
        created_at: expect.any(String),
        expires_at: '2032-01-01T00:00:00.000Z',
        revoked_at: expect.any(String),
        limits: {},
      },
    ]);
    for (const k of [a, b]) {
      expect(run.stdout).not.toContain(k.key);
      expect(run.stdout).not.toContain(sha256(k.key));
    }
    expect(await listApiKeys(ds, { affiliateId: owner }, new Date('2033-01-01T00:00:00Z'))).toEqual([
      expect.objectContaining({ id: a.id, state: 'active' }),
      expect.objectContaining({ id: b.id, state: 'revoked' }),
    ]);

    const unknown = await ops('keys', 'list', '--affiliate', randomUUID());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown affiliate/);
  });
});
