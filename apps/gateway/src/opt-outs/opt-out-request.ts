import { OptOutKey, optOutKeysOf, PersonKeySecret, REFUSAL } from '@lr/domain';
import { ApiError } from '../http/api-error';
import { checkDto, requireObjectBody, throwIfProblems } from '../http/validation';
import { OptOutRequestDto } from './opt-out-request.dto';

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/**
 * Reads an opt-out body into the person's suppression keys, or throws the
 * contract's 400: INVALID_FIELD naming `hashed` (or one of its keys) when it
 * is not an object of SHA-256 hex values; MALFORMED_REQUEST when neither an
 * email nor a phone is usable. Raw values are normalized and hashed by the
 * duplicate keys' own functions and keyed under the server secret; a hashed
 * key wins over the same raw key.
 */
export function parseOptOutRequest(secret: PersonKeySecret, body: unknown): OptOutKey[] {
  const { dto, problems } = checkDto(OptOutRequestDto, requireObjectBody(body));
  throwIfProblems(problems);
  const keys = optOutKeysOf(
    secret,
    { email: text(dto.email), phone: text(dto.phone) },
    { email: dto.hashed?.email, phone: dto.hashed?.phone },
  );
  if (keys.length === 0) throw ApiError.malformed(REFUSAL.noUsableContactField);
  return keys;
}
