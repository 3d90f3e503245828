import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import { Decision, REFUSAL } from '../decisions';

/**
 * Idempotency keys (docs/idempotency.md): an affiliate's `Idempotency-Key`
 * header on a search or a submit names the request, so that a retry of it
 * (after a timeout, a broken connection, a 503) answers what the first one
 * answered, under the same `svc_lead_id`, and never decides twice.
 */

/** The request header, as Node presents header names (lower case). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** The header's name as documented. */
export const IDEMPOTENCY_KEY_FIELD = 'Idempotency-Key';
/** How long a key names its request: a retry within this window answers the original answer. */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 3600;
/** Longest key accepted (Stripe's limit; a UUID is 36). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

const KEY_SHAPE = /^[\x21-\x7e]+$/;

export type IdempotencyKeyReading = { key: string | null } | { refusal: Decision };

/**
 * The key a request carries: none (no header, the contract's behaviour), the
 * key, or a refusal naming the header (400 `INVALID_FIELD`): sent twice, empty,
 * longer than 255 characters, or with a character outside printable ASCII.
 */
export function readIdempotencyKey(header: string | string[] | undefined): IdempotencyKeyReading {
  if (header === undefined) return { key: null };
  if (Array.isArray(header)) return { refusal: REFUSAL.idempotencyKeyInvalid(`${IDEMPOTENCY_KEY_FIELD} must be sent once`) };
  if (header.length === 0) return { refusal: REFUSAL.idempotencyKeyInvalid(`${IDEMPOTENCY_KEY_FIELD} must not be empty`) };
  if (header.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
    return { refusal: REFUSAL.idempotencyKeyInvalid(`${IDEMPOTENCY_KEY_FIELD} must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`) };
  }
  if (!KEY_SHAPE.test(header))
    return { refusal: REFUSAL.idempotencyKeyInvalid(`${IDEMPOTENCY_KEY_FIELD} must be printable ASCII without spaces`) };
  return { key: header };
}

/**
 * What "the same body" means for a key: the parsed JSON body with its object
 * keys sorted (so a client that re-serializes its request in another key order
 * or spacing still retries the same request), hashed. Arrays keep their order.
 */
export function requestBodyDigest(body: unknown): string {
  return createHash('sha256')
    .update(stringify(body) ?? 'null')
    .digest('hex');
}
