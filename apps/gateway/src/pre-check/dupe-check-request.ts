import { type DedupeKey, dedupeKeysFromHashes, HASHED_KEYS, type HashedKey, leadHashes, type PersonKeySecret } from '@lr/domain';
import { ApiError } from '../http/api-error';
import { checkDto, requireObjectBody, throwIfProblems } from '../http/validation';
import { DupeCheckRequestDto, HashedKeysDto } from './dupe-check-request.dto';
import { REFUSAL } from '@lr/domain';

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

/** A non-empty string after trimming, or undefined. */
function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/**
 * Reads a pre-check body into the person's duplicate keys, or throws the
 * contract's 400: INVALID_FIELD for a non-UUID `offer_id` (or a `hashed` value
 * that is not a SHA-256 hex), both checked by DupeCheckRequestDto, the class the
 * OpenAPI document shows; MALFORMED_REQUEST when no field is usable.
 *
 * Raw values are normalized and hashed by leadHashes(), the very function the
 * submit path builds the dedupe index with, so both always hash a person alike
 * (a raw `dob` also yields `birth_year`). A `hashed.<key>` value, lower-cased,
 * wins over the same raw key. The keys are the stored person keys: the hashes
 * keyed under the server secret (dedupeKeysFromHashes). A raw value that cannot be normalized (an email
 * without @, a nine-digit phone) is not usable and is left out. Unknown keys,
 * inside `hashed` or beside it, are ignored (the contract allows extra properties).
 */
export function parseDupeCheckRequest(secret: PersonKeySecret, body: unknown): DupeCheckRequest {
  const { dto, problems } = checkDto(DupeCheckRequestDto, requireObjectBody(body));
  throwIfProblems(problems);
  const hashed = hashedValues(dto.hashed);
  const raw = leadHashes({
    personal: { email: text(dto.email), phone: text(dto.phone), last_name: text(dto.last_name), date_of_birth: text(dto.dob) },
    address: { zip_code: text(dto.zip) },
  });
  const hashes: Partial<Record<HashedKey, string>> = { ...raw, ...hashed };
  const usable = Object.keys(hashes).length > 0 || RAW_ONLY_FIELDS.some((f) => text(dto[f]) !== undefined);
  if (!usable) throw ApiError.malformed(REFUSAL.noUsableLeadField);
  return { offerId: dto.offer_id?.toLowerCase(), keys: dedupeKeysFromHashes(secret, hashes) };
}

/** The known keys of `hashed` (each already checked as a SHA-256 hex by the DTO), lower-cased. */
function hashedValues(hashed: HashedKeysDto | undefined): Partial<Record<HashedKey, string>> {
  const out: Partial<Record<HashedKey, string>> = {};
  for (const key of HASHED_KEYS) {
    const v = hashed?.[key];
    if (v !== undefined) out[key] = v.toLowerCase();
  }
  return out;
}
