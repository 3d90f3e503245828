import type { MasterKeys } from '@lr/config';
import { decrypt, encrypt, KEY_BYTES, UnreadableError } from './cipher';

/**
 * What wraps the data keys: the configured master keys now (ConfigKeyWrapper);
 * a KMS would be another implementation of this interface, with its own key
 * ids. `keyId` is the key new data keys are wrapped under.
 */
export interface KeyWrapper {
  readonly keyId: string;
  wrap(dek: Buffer): Promise<Buffer>;
  /** Throws UnreadableError when `keyId` is not configured (retired) or the wrapped key does not authenticate. */
  unwrap(wrapped: Buffer, keyId: string): Promise<Buffer>;
}

/** The wrapped form: IV (12 bytes), then the data key encrypted with its tag (48). */
const IV_BYTES = 12;

/** Master keys from configuration (DATA_MASTER_KEYS, DATA_MASTER_KEY_ID): AES-256-GCM, the master key's id as AAD. */
export class ConfigKeyWrapper implements KeyWrapper {
  readonly keyId: string;

  constructor(private readonly masterKeys: MasterKeys) {
    this.keyId = masterKeys.currentId;
  }

  wrap(dek: Buffer): Promise<Buffer> {
    const c = encrypt(this.key(this.keyId), dek, aadOf(this.keyId));
    return Promise.resolve(Buffer.concat([c.iv, c.data]));
  }

  unwrap(wrapped: Buffer, keyId: string): Promise<Buffer> {
    try {
      const dek = decrypt(this.key(keyId), { iv: wrapped.subarray(0, IV_BYTES), data: wrapped.subarray(IV_BYTES) }, aadOf(keyId));
      if (dek.length !== KEY_BYTES) throw new UnreadableError('a wrapped data key of the wrong length');
      return Promise.resolve(dek);
    } catch (e) {
      return Promise.reject(e instanceof UnreadableError ? e : new UnreadableError(String(e)));
    }
  }

  private key(id: string): Buffer {
    const key = this.masterKeys.keys.get(id);
    if (!key) throw new UnreadableError(`master key ${id} is not configured`);
    return key;
  }
}

const aadOf = (keyId: string) => `data-key:${keyId}`;
