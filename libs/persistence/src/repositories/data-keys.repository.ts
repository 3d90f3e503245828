import type { DataSource } from 'typeorm';
import { keyStoreStatement, run } from '../queries/sql';

/** One data key as the key store holds it: wrapped under master key `keyId`. */
export interface WrappedDataKey {
  id: string;
  keyId: string;
  wrapped: Buffer;
}

/** A batch of new data keys in one statement (the gateway's pool refills with it). */
const INSERT_KEYS = keyStoreStatement(
  'insertDataKeys',
  `INSERT INTO data_keys (id, key_id, wrapped)
   SELECT k.id, $1, k.wrapped FROM unnest($2::uuid[], $3::bytea[]) AS k(id, wrapped)`,
);

const READ_KEYS = keyStoreStatement('readDataKeys', `SELECT id, key_id, wrapped FROM data_keys WHERE id = ANY($1::uuid[])`);

const DESTROY_KEYS = keyStoreStatement('destroyDataKeys', `DELETE FROM data_keys WHERE id = ANY($1::uuid[]) RETURNING id`);

/** The next keys (by id) not wrapped under the current master key. */
const KEYS_TO_REWRAP = keyStoreStatement(
  'dataKeysToRewrap',
  `SELECT id, key_id, wrapped FROM data_keys WHERE key_id <> $1 AND id > $2::uuid ORDER BY id LIMIT $3`,
);

/** One key re-wrapped, unless another run did it first (its master key changed since it was read). */
const REWRAP_KEY = keyStoreStatement(
  'rewrapDataKeys',
  `UPDATE data_keys d SET key_id = $1, wrapped = k.wrapped
     FROM unnest($2::uuid[], $3::text[], $4::bytea[]) AS k(id, was, wrapped)
    WHERE d.id = k.id AND d.key_id = k.was`,
);

const KEYS_BY_MASTER = keyStoreStatement(
  'dataKeysByMaster',
  `SELECT key_id, count(*)::int AS keys FROM data_keys GROUP BY key_id ORDER BY key_id`,
);

/**
 * The key store (docs/security.md, Encryption at rest): the wrapped data
 * keys, in a database of their own (KEYSTORE_DATABASE_URL), so that a dump of
 * the main database holds ciphertext only. Its DataSource is the key store's.
 */
export class DataKeys {
  constructor(private readonly ds: DataSource) {}

  async insert(keyId: string, keys: ReadonlyArray<{ id: string; wrapped: Buffer }>): Promise<void> {
    await run(this.ds, INSERT_KEYS, [keyId, keys.map((k) => k.id), keys.map((k) => k.wrapped)]);
  }

  /** The keys of these ids that exist (a destroyed one is absent), in one indexed read. */
  async read(ids: readonly string[]): Promise<WrappedDataKey[]> {
    const rows = await run(this.ds, READ_KEYS, [ids]);
    return rows.map((r) => ({ id: r.id, keyId: r.key_id, wrapped: r.wrapped }));
  }

  /** Destroys these keys (crypto-shredding): answers the ids that existed. */
  async destroy(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    return (await run(this.ds, DESTROY_KEYS, [ids])).map((r) => r.id);
  }

  /** Up to `limit` keys after `after` (an id) not wrapped under `currentKeyId`. */
  async toRewrap(currentKeyId: string, after: string, limit: number): Promise<WrappedDataKey[]> {
    const rows = await run(this.ds, KEYS_TO_REWRAP, [currentKeyId, after, limit]);
    return rows.map((r) => ({ id: r.id, keyId: r.key_id, wrapped: r.wrapped }));
  }

  /** Stores keys re-wrapped under `keyId`; each only if it is still under the master key it was read with. */
  async rewrap(keyId: string, keys: ReadonlyArray<WrappedDataKey & { was: string }>): Promise<void> {
    await run(this.ds, REWRAP_KEY, [keyId, keys.map((k) => k.id), keys.map((k) => k.was), keys.map((k) => k.wrapped)]);
  }

  /** How many keys each master key wraps: a master key with none can be retired. */
  async byMasterKey(): Promise<Array<{ keyId: string; keys: number }>> {
    return (await run(this.ds, KEYS_BY_MASTER)).map((r) => ({ keyId: r.key_id, keys: r.keys ?? 0 }));
  }
}
