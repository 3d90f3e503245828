import { randomUUID } from 'node:crypto';
import { type ContactPart, joinContact, type SealedContact, splitContact, type StoredContact } from '@lr/domain';
import type { DataKeys } from '../repositories/data-keys.repository';
import { decrypt, encrypt, newDataKey, UnreadableError } from './cipher';
import type { KeyWrapper } from './key-wrapper';

export interface ContactSealerOptions {
  /** Data keys made, wrapped and stored together when the pool is empty (one INSERT). */
  poolBatch: number;
  /** How long an opened data key is reused in memory (ms): a destroyed key can still open data here this long. */
  cacheTtlMs: number;
  /** At most this many opened keys are kept. */
  cacheSize: number;
}

export const SEALER_DEFAULTS: ContactSealerOptions = { poolBatch: 64, cacheTtlMs: 60_000, cacheSize: 2_000 };

/**
 * Seals and opens contact data (docs/security.md, Encryption at rest). A new
 * record's data key comes from a small in-process pool, refilled in batches
 * (one INSERT of N wrapped keys into the key store), so sealing a search
 * costs no round trip; each key seals one record only. Opening reads the
 * data key by id (one indexed read; the keys of several records in one),
 * reused for `cacheTtlMs`.
 */
export class ContactSealer {
  private pool: Array<{ id: string; dek: Buffer }> = [];
  private refill: Promise<void> | null = null;
  private readonly opened = new Map<string, { dek: Buffer; until: number }>();

  constructor(
    private readonly keys: DataKeys,
    private readonly wrapper: KeyWrapper,
    private readonly options: ContactSealerOptions = SEALER_DEFAULTS,
  ) {}

  /** `value` (JSON) sealed for record `of` under a data key of its own. */
  async seal(of: string, value: unknown): Promise<SealedContact> {
    const { id, dek } = await this.take();
    const c = encrypt(dek, Buffer.from(JSON.stringify(value), 'utf8'), aadOf(of, id));
    return { of, key: id, iv: c.iv.toString('base64'), data: c.data.toString('base64') };
  }

  /** The sealed value; throws UnreadableError when its data key was destroyed or it does not authenticate. */
  async open<T>(sealed: SealedContact): Promise<T> {
    return (await this.openAll<T>([sealed]))[0];
  }

  /** Several sealed values, their keys read in one statement. */
  async openAll<T>(sealed: readonly SealedContact[]): Promise<T[]> {
    const deks = await this.dataKeys(sealed.map((s) => s.key));
    return sealed.map((s) => openWith<T>(deks.get(s.key), s));
  }

  /** Like openAll, with null for each value that cannot be read (a deletion's). */
  async tryOpenAll<T>(sealed: readonly SealedContact[]): Promise<Array<T | null>> {
    const deks = await this.dataKeys(sealed.map((s) => s.key));
    return sealed.map((s) => {
      try {
        return openWith<T>(deks.get(s.key), s);
      } catch (e) {
        if (e instanceof UnreadableError) return null;
        throw e;
      }
    });
  }

  /**
   * A record's contact columns split into what stays readable and what is
   * sealed (libs/domain splitContact), the sealed part under a data key of
   * record `of`'s own.
   */
  async sealRecord(of: string, record: StoredContact, today: Date): Promise<{ readable: StoredContact; contact: SealedContact }> {
    const { readable, contact } = splitContact(record, today);
    return { readable, contact: await this.seal(of, contact) };
  }

  /**
   * A record's contact columns as they were sent: its readable part joined
   * with its sealed part opened (libs/domain joinContact); a record with
   * nothing sealed (null: stored whole before sealing, or erased) as it is.
   * Throws UnreadableError when the sealed part cannot be read (its data key
   * was destroyed: a deletion).
   */
  async openRecord(readable: StoredContact, contact: SealedContact | null | undefined): Promise<StoredContact> {
    if (!contact) return readable;
    return joinContact(readable, await this.open<ContactPart>(contact));
  }

  /** Destroys the data keys of these sealed values (crypto-shredding); answers how many existed. */
  async destroy(keyIds: readonly string[]): Promise<number> {
    for (const id of keyIds) this.opened.delete(id);
    return (await this.keys.destroy([...new Set(keyIds)])).length;
  }

  private async dataKeys(ids: readonly string[]): Promise<Map<string, Buffer>> {
    const now = Date.now();
    const found = new Map<string, Buffer>();
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const hit = this.opened.get(id);
      if (hit && hit.until > now) found.set(id, hit.dek);
      else missing.push(id);
    }
    if (missing.length === 0) return found;
    for (const row of await this.keys.read(missing)) {
      const dek = await this.wrapper.unwrap(row.wrapped, row.keyId);
      found.set(row.id, dek);
      if (this.opened.size >= this.options.cacheSize) this.opened.delete(this.opened.keys().next().value as string);
      this.opened.set(row.id, { dek, until: now + this.options.cacheTtlMs });
    }
    return found;
  }

  private async take(): Promise<{ id: string; dek: Buffer }> {
    for (;;) {
      const next = this.pool.pop();
      if (next) return next;
      this.refill ??= this.fill().finally(() => (this.refill = null));
      await this.refill;
    }
  }

  private async fill(): Promise<void> {
    const made = Array.from({ length: this.options.poolBatch }, () => ({ id: randomUUID(), dek: newDataKey() }));
    const wrapped = await Promise.all(made.map(async (k) => ({ id: k.id, wrapped: await this.wrapper.wrap(k.dek) })));
    await this.keys.insert(this.wrapper.keyId, wrapped);
    this.pool.push(...made);
  }
}

function openWith<T>(dek: Buffer | undefined, s: SealedContact): T {
  if (!dek) throw new UnreadableError('its data key was destroyed');
  const plain = decrypt(dek, { iv: Buffer.from(s.iv, 'base64'), data: Buffer.from(s.data, 'base64') }, aadOf(s.of, s.key));
  return JSON.parse(plain.toString('utf8')) as T;
}

/** What a sealed value is bound to: its record and its data key. */
const aadOf = (of: string, keyId: string) => `${of}:${keyId}`;
