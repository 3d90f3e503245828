import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { parseMasterKeys, type MasterKeys } from '@lr/config';
import type { SealedContact } from '@lr/domain';
import { MEDIUM_DATABASE_URL } from '../../../../test/support/medium-env';
import { dropDatabase, ownDatabaseUrl } from '../../../../test/support/test-database';
import { createDataSource } from '../data-source';
import { ensureDatabase } from '../ensure-database';
import { KEYSTORE_MIGRATIONS } from '../migrations/keystore';
import { DataKeys } from '../repositories/data-keys.repository';
import { UnreadableError } from './cipher';
import { ContactSealer } from './contact-sealer';
import { ConfigKeyWrapper } from './key-wrapper';
import { rewrapDataKeys } from './rewrap';

/** Master keys as configuration gives them (DATA_MASTER_KEYS, DATA_MASTER_KEY_ID). */
function masterKeys(pairs: Array<[string, Buffer]>, currentId: string): MasterKeys {
  const parsed = parseMasterKeys({ keys: pairs.map(([id, key]) => `${id}:${key.toString('base64')}`).join(','), currentId }, true);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
}

const contact = { personal: { email: 'ada.sealed@example.com', phone: '5125550147' }, ip: '203.0.113.9' };
const noCache = { poolBatch: 4, cacheTtlMs: 0, cacheSize: 10 };

const rotationUrl = ownDatabaseUrl(MEDIUM_DATABASE_URL, '_rotation_keys');

describe('ContactSealer (AES-256-GCM data keys in the key store)', () => {
  let ds: DataSource;
  let keys: DataKeys;
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const oldId = `old-${randomUUID().slice(0, 8)}`;
  const newId = `new-${randomUUID().slice(0, 8)}`;

  // A key store of this file's own: the rotation re-wraps every key of its store, which the services' keys
  // (the other medium files', under the configured master key) must not see.
  beforeAll(async () => {
    await dropDatabase(rotationUrl, 'medium'); // a fresh one each run: an earlier run's keys are under master keys gone since
    await ensureDatabase(rotationUrl);
    ds = createDataSource({ url: rotationUrl, poolSize: 2, timeoutMs: 10_000, migrations: KEYSTORE_MIGRATIONS });
    await ds.initialize();
    await ds.runMigrations({ transaction: 'each' });
    keys = new DataKeys(ds);
  });
  afterAll(async () => {
    await ds.destroy();
    await dropDatabase(rotationUrl, 'medium');
  });

  const sealer = (m: MasterKeys) => new ContactSealer(keys, new ConfigKeyWrapper(m), noCache);

  it('opens what it sealed, and the sealed form holds neither the value nor the data key', async () => {
    const s = sealer(masterKeys([[oldId, oldKey]], oldId));
    const id = randomUUID();
    const sealed = await s.seal(id, contact);
    expect(JSON.stringify(sealed)).not.toContain('ada.sealed');
    expect(Object.keys(sealed).sort()).toEqual(['data', 'iv', 'key', 'of']);
    expect(Buffer.from(sealed.iv, 'base64')).toHaveLength(12);
    await expect(s.open(sealed)).resolves.toEqual(contact);
    // Each record has a data key of its own.
    expect((await s.seal(randomUUID(), contact)).key).not.toBe(sealed.key);
  });

  it('detects a flipped byte of the ciphertext or the IV', async () => {
    const s = sealer(masterKeys([[oldId, oldKey]], oldId));
    const sealed = await s.seal(randomUUID(), contact);
    const flip = (b64: string, at: number) => {
      const bytes = Buffer.from(b64, 'base64');
      bytes[at] ^= 0x01;
      return bytes.toString('base64');
    };
    await expect(s.open({ ...sealed, data: flip(sealed.data, 3) })).rejects.toBeInstanceOf(UnreadableError);
    await expect(s.open({ ...sealed, data: flip(sealed.data, Buffer.from(sealed.data, 'base64').length - 1) })).rejects.toBeInstanceOf(
      UnreadableError,
    );
    await expect(s.open({ ...sealed, iv: flip(sealed.iv, 0) })).rejects.toBeInstanceOf(UnreadableError);
  });

  it('fails with the wrong authenticated data: a ciphertext moved onto another record does not open', async () => {
    const s = sealer(masterKeys([[oldId, oldKey]], oldId));
    const sealed = await s.seal(randomUUID(), contact);
    await expect(s.open({ ...sealed, of: randomUUID() })).rejects.toBeInstanceOf(UnreadableError);
    const other = await s.seal(randomUUID(), contact);
    await expect(s.open({ ...sealed, key: other.key })).rejects.toBeInstanceOf(UnreadableError);
  });

  it('cannot open anything once its data key is destroyed, however it was copied', async () => {
    const s = sealer(masterKeys([[oldId, oldKey]], oldId));
    const sealed = await s.seal(randomUUID(), contact);
    const copy: SealedContact = JSON.parse(JSON.stringify(sealed)) as SealedContact;
    expect(await s.destroy([sealed.key])).toBe(1);
    await expect(s.open(copy)).rejects.toBeInstanceOf(UnreadableError);
    await expect(s.tryOpenAll([copy])).resolves.toEqual([null]);
    expect(await s.destroy([sealed.key])).toBe(0);
  });

  it('rewraps the data keys under a new master key without touching the data, after which the old master key can be retired', async () => {
    const before = sealer(masterKeys([[oldId, oldKey]], oldId));
    const sealed = await Promise.all([randomUUID(), randomUUID()].map((id) => before.seal(id, contact)));

    const rotating = new ConfigKeyWrapper(
      masterKeys(
        [
          [newId, newKey],
          [oldId, oldKey],
        ],
        newId,
      ),
    );
    expect(await rewrapDataKeys(keys, rotating, 1)).toBeGreaterThanOrEqual(2);
    expect(await rewrapDataKeys(keys, rotating)).toBe(0);
    expect((await keys.byMasterKey()).find((k) => k.keyId === oldId)).toBeUndefined();

    // The old master key retired: configuration lists only the new one, and the data opens as it was.
    const retired = sealer(masterKeys([[newId, newKey]], newId));
    await expect(retired.openAll(sealed)).resolves.toEqual([contact, contact]);
    // Without the master key its data keys are wrapped under, nothing opens.
    const wrong = sealer(masterKeys([[oldId, oldKey]], oldId));
    await expect(wrong.open(sealed[0])).rejects.toBeInstanceOf(UnreadableError);
  });
});
