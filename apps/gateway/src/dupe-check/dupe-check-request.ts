import { isUUID } from 'class-validator';
import { type DedupeKey, dedupeKeysFromHashes, HASHED_KEYS, type HashedKey, leadHashes } from '@lr/domain';
import { ApiError } from '../http/api-error';
import { requireObjectBody } from '../http/validation';

/**
 * Raw fields that are accepted (they make a request usable) but belong to no
 * duplicate key: the contract sends first name and street address raw and never
 * hashed, and the duplicate rules (docs/duplicates.md) do not match on them.
 */
const RAW_ONLY_FIELDS = ['first_name', 'address'] as const;

export interface DupeCheckRequest {
  /** Lower-case; present for the offer-scoped policy. */
  offerId?: string;
  /** The person's keys (email, phone, name_zip_dob); empty when the usable fields make none. */
  keys: DedupeKey[];
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

/** A non-empty string after trimming, or undefined. */
function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/**
 * Reads a pre-check body into the person's duplicate keys, or throws the
 * contract's 400: INVALID_FIELD for a non-UUID `offer_id` (or a `hashed` value
 * that is not a SHA-256 hex), MALFORMED_REQUEST when no field is usable.
 *
 * Raw values are normalized and hashed by leadHashes(), the very function the
 * submit path builds the dedupe index with, so both always hash a person alike
 * (a raw `dob` also yields `birth_year`). A `hashed.<key>` value, lower-cased,
 * wins over the same raw key. A raw value that cannot be normalized (an email
 * without @, a nine-digit phone) is not usable and is left out. Unknown keys,
 * inside `hashed` or beside it, are ignored (the contract allows extra properties).
 */
export function parseDupeCheckRequest(body: unknown): DupeCheckRequest {
  const obj = requireObjectBody(body);
  if (obj.offer_id !== undefined && (typeof obj.offer_id !== 'string' || !isUUID(obj.offer_id))) {
    throw ApiError.invalidField('offer_id', 'offer_id must be a UUID');
  }
  const hashed = hashedValues(obj.hashed);
  const raw = leadHashes({
    personal: { email: text(obj.email), phone: text(obj.phone), last_name: text(obj.last_name), date_of_birth: text(obj.dob) },
    address: { zip_code: text(obj.zip) },
  });
  const hashes: Partial<Record<HashedKey, string>> = { ...raw, ...hashed };
  const usable = Object.keys(hashes).length > 0 || RAW_ONLY_FIELDS.some((f) => text(obj[f]) !== undefined);
  if (!usable) throw ApiError.malformed(400, 'No usable lead field');
  return {
    offerId: typeof obj.offer_id === 'string' ? obj.offer_id.toLowerCase() : undefined,
    keys: dedupeKeysFromHashes(hashes),
  };
}

/** The contract's `hashed` object: its known keys, each a SHA-256 hex, lower-cased. */
function hashedValues(hashed: unknown): Partial<Record<HashedKey, string>> {
  if (hashed === undefined) return {};
  if (hashed === null || typeof hashed !== 'object' || Array.isArray(hashed)) {
    throw ApiError.invalidField('hashed', 'hashed must be an object');
  }
  const given = hashed as Record<string, unknown>;
  const out: Partial<Record<HashedKey, string>> = {};
  for (const key of HASHED_KEYS) {
    const v = given[key];
    if (v === undefined) continue;
    if (typeof v !== 'string' || !HEX64.test(v)) throw ApiError.invalidField(`hashed.${key}`, `hashed.${key} must be a lower-case hex SHA-256`);
    out[key] = v.toLowerCase();
  }
  return out;
}
