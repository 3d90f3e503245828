import { createHmac } from 'node:crypto';

/**
 * The person keys we store (docs/security.md, "Person keys"): the duplicate
 * index, the suppressions and their audit, the opt-outs, the consent ledger
 * and a search's person keys hold HMAC-SHA-256 under a server secret of the
 * contract's SHA-256 (affiliate-api.md, "Normalization before hashing"), never
 * that SHA-256 itself. A plain SHA-256 of a phone is reversed by trying every
 * number of an area code; the keyed one cannot be tried without the secret.
 * An affiliate's hashed input is the contract's SHA-256, so it still finds
 * the stored key: stored = HMAC(secret, sha256 hex).
 */

declare const PERSON_KEY_SECRET: unique symbol;

/** The server secret person keys are made with (PERSON_KEY_SECRET or PERSON_KEY_SECRET_FILE; libs/config). */
export type PersonKeySecret = string & { readonly [PERSON_KEY_SECRET]: true };

/** Shorter secrets are refused: 32 characters of a random secret carry far more than the 128 bits wanted. */
export const PERSON_KEY_SECRET_MIN_LENGTH = 32;

/** The secret as the key functions take it; throws when it is too short to be a secret. */
export function personKeySecret(text: string): PersonKeySecret {
  if (text.length < PERSON_KEY_SECRET_MIN_LENGTH)
    throw new Error(`a person key secret needs at least ${PERSON_KEY_SECRET_MIN_LENGTH} characters`);
  return text as PersonKeySecret;
}

/**
 * The stored person key of a contract hash: lower-case hex HMAC-SHA-256, the
 * key the secret's UTF-8 bytes, the message the 64 lower-case hex characters
 * of the SHA-256. The same as
 * `printf '%s' "$SHA256_HEX" | openssl dgst -sha256 -hmac "$SECRET"`.
 */
export function keyedPersonKey(secret: PersonKeySecret, sha256: string): string {
  return createHmac('sha256', secret).update(sha256.toLowerCase(), 'utf8').digest('hex');
}
