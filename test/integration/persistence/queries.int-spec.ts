import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ApiKeyRepository, CatalogRepository, createDataSource, hashApiKey } from '@lr/persistence';
import { TEST_DATABASE_URL } from '../../support/test-env';

/** The lookups the gateway makes on every call. */
describe('persistence queries', () => {
  let ds: DataSource;
  const affiliateId = randomUUID();
  const campaignId = randomUUID();
  const keyId = randomUUID();
  const rawKey = `lr_${'x'.repeat(40)}${randomUUID().slice(0, 3)}`;

  beforeAll(async () => {
    ds = createDataSource({ url: TEST_DATABASE_URL, poolSize: 2, timeoutMs: 5000 });
    await ds.initialize();
    await ds.query(`INSERT INTO affiliates (id, name, status, dupe_check) VALUES ($1, 'Query Co', 'active', true)`, [affiliateId]);
    await ds.query(`INSERT INTO campaigns (id, affiliate_id, name, status) VALUES ($1, $2, 'Paused one', 'paused')`, [
      campaignId,
      affiliateId,
    ]);
    await ds.query(
      `INSERT INTO api_keys (id, affiliate_id, key_hash, key_prefix, expires_at, limits)
       VALUES ($1, $2, $3, $4, '2040-01-01T00:00:00Z', '{"results": {"per_minute": 900, "burst": 900}, "bogus": {"per_minute": 1, "burst": 1}}')`,
      [keyId, affiliateId, hashApiKey(rawKey), rawKey.slice(0, 8)],
    );
  });

  afterAll(async () => {
    await ds?.destroy();
  });

  it('hashApiKey is the lower-case hex SHA-256 of the raw key', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('ApiKeyRepository.findByHash returns the key with its limits in the contract’s terms, or null', async () => {
    expect(await new ApiKeyRepository(ds).findByHash(hashApiKey(rawKey))).toEqual({
      id: keyId,
      affiliateId,
      schoolId: null,
      affiliateStatus: 'active',
      expiresAt: new Date('2040-01-01T00:00:00Z'),
      revokedAt: null,
      limits: { results: { perMinute: 900, burst: 900 } },
    });
    expect(await new ApiKeyRepository(ds).findByHash(hashApiKey('unknown'))).toBeNull();
    await ds.transaction(async (em) => {
      expect((await new ApiKeyRepository(em).findByHash(hashApiKey(rawKey)))?.id).toBe(keyId);
    });
  });

  it('CatalogRepository.campaign returns id, owner and status, or null', async () => {
    expect(await new CatalogRepository(ds).campaign(campaignId)).toEqual({ id: campaignId, affiliateId, status: 'paused' });
    expect(await new CatalogRepository(ds).campaign(randomUUID())).toBeNull();
    expect(await new CatalogRepository(ds).campaign('not-a-uuid')).toBeNull();
  });

  it('CatalogRepository.affiliate returns status and the dupe-check flag', async () => {
    expect(await new CatalogRepository(ds).affiliate(affiliateId)).toEqual({
      id: affiliateId,
      name: 'Query Co',
      status: 'active',
      dupeCheck: true,
    });
    expect(await new CatalogRepository(ds).affiliate(randomUUID())).toBeNull();
  });
});
