import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { mediumDataSource } from '../../../../test/support/medium-world';
import { IdempotencyKeys, KeyClaim } from './idempotency-key.repository';

/**
 * `idempotency_keys` against the real PostgreSQL: one runner per key under
 * concurrency, a lapsed lease taken over with the same id, an answered key
 * answered, another body visible to the caller, and the window.
 */
describe('IdempotencyKeys (medium)', () => {
  let ds: DataSource;
  let keys: IdempotencyKeys;
  const claimOf = (over: Partial<KeyClaim> = {}): KeyClaim => ({
    affiliateId: randomUUID(),
    endpoint: 'leads',
    key: randomUUID(),
    bodyDigest: 'a'.repeat(64),
    leadId: randomUUID(),
    owner: randomUUID(),
    leaseMs: 60_000,
    windowSeconds: 86_400,
    ...over,
  });

  beforeAll(async () => {
    ds = await mediumDataSource(12);
    keys = new IdempotencyKeys(ds);
  });
  afterAll(() => ds?.destroy());

  it("a new key is the claimer's, under its id", async () => {
    const c = claimOf();
    const row = await keys.claim(c);
    expect(row).toMatchObject({ owner: c.owner, leadId: c.leadId, bodyDigest: c.bodyDigest, answer: null });
  });

  it('ten concurrent claims of one key: one runner, one id, the others see it', async () => {
    const base = claimOf();
    const rows = await Promise.all(Array.from({ length: 10 }, () => keys.claim({ ...base, owner: randomUUID(), leadId: randomUUID() })));
    expect(new Set(rows.map((r) => r.owner)).size).toBe(1);
    expect(new Set(rows.map((r) => r.leadId)).size).toBe(1);
  });

  it('an answered key answers its answer; a lapsed lease without an answer is taken over under the same id', async () => {
    const first = claimOf({ leaseMs: 0 });
    await keys.claim(first);
    const taker = { ...first, owner: randomUUID(), leadId: randomUUID(), leaseMs: 60_000 };
    const taken = await keys.claim(taker);
    expect(taken).toMatchObject({ owner: taker.owner, leadId: first.leadId });
    // The first runner lost the key: its late answer records nothing.
    await keys.answer(first, 200, { code: 'LATE' });
    await keys.answer(taker, 200, { code: 'ACCEPTED' });
    const later = await keys.claim({ ...first, owner: randomUUID(), leadId: randomUUID() });
    expect(later).toMatchObject({ owner: taker.owner, leadId: first.leadId, answer: { status: 200, body: { code: 'ACCEPTED' } } });
  });

  it('a released key goes to the next claim at once; a different body is returned for the caller to refuse', async () => {
    const c = claimOf();
    await keys.claim(c);
    const other = await keys.claim({ ...c, owner: randomUUID(), bodyDigest: 'b'.repeat(64) });
    expect(other).toMatchObject({ owner: c.owner, bodyDigest: c.bodyDigest });
    await keys.release(c);
    const next = { ...c, owner: randomUUID(), leadId: randomUUID() };
    expect(await keys.claim(next)).toMatchObject({ owner: next.owner, leadId: c.leadId });
    // Another body never takes a key over, lapsed or not.
    await keys.release(next);
    expect(await keys.claim({ ...c, owner: randomUUID(), bodyDigest: 'b'.repeat(64) })).toMatchObject({ owner: next.owner });
  });

  it('past its window a key names a new request, and prune deletes it', async () => {
    const c = claimOf();
    await keys.claim(c);
    await keys.answer(c, 200, { code: 'ACCEPTED' });
    await ds.query(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE idem_key = $1`, [c.key]);
    const fresh = { ...c, owner: randomUUID(), leadId: randomUUID(), bodyDigest: 'c'.repeat(64) };
    expect(await keys.claim(fresh)).toMatchObject({ owner: fresh.owner, leadId: fresh.leadId, bodyDigest: fresh.bodyDigest, answer: null });
    const old = claimOf();
    await keys.claim(old);
    await ds.query(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE idem_key = $1`, [old.key]);
    expect(await keys.prune(86_400, 10_000)).toBeGreaterThanOrEqual(1);
    expect((await ds.query('SELECT 1 FROM idempotency_keys WHERE idem_key = $1', [old.key])).length).toBe(0);
    expect((await ds.query('SELECT 1 FROM idempotency_keys WHERE idem_key = $1', [fresh.key])).length).toBe(1);
  });
});
