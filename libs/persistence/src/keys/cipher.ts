import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM (node:crypto), the one authenticated cipher of the data at rest
 * and in messages (docs/security.md, Encryption at rest): a random 96-bit IV
 * per encryption, a 128-bit tag, and additional authenticated data that
 * binds the ciphertext to what it belongs to (a record's id, a data key's
 * id): a ciphertext copied onto another record, a flipped byte or a wrong key
 * fails to open.
 */
export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface Ciphertext {
  iv: Buffer;
  /** The encrypted bytes with the tag appended. */
  data: Buffer;
}

export function encrypt(key: Buffer, plaintext: Buffer, aad: string): Ciphertext {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const data = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return { iv, data };
}

/** The plaintext; throws UnreadableError when the key, the AAD, the IV or any byte is not the one it was made with. */
export function decrypt(key: Buffer, c: Ciphertext, aad: string): Buffer {
  if (c.iv.length !== IV_BYTES || c.data.length < TAG_BYTES) throw new UnreadableError('malformed ciphertext');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, c.iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(c.data.subarray(c.data.length - TAG_BYTES));
    return Buffer.concat([decipher.update(c.data.subarray(0, c.data.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new UnreadableError('ciphertext does not authenticate');
  }
}

/** Data that cannot be read: its data key was destroyed (a deletion), or it does not authenticate. The message names no value. */
export class UnreadableError extends Error {
  override readonly name = 'UnreadableError';
}

/** A fresh data key. */
export function newDataKey(): Buffer {
  return randomBytes(KEY_BYTES);
}
