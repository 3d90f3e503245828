import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsUUID, ValidateNested } from 'class-validator';
import { IsSha256Hex, SHA256_HEX, WhenSent } from '../http/dto-checks';
import type { HashedKey } from '@lr/domain';

const hex = (normalized: string) =>
  ({ type: String, pattern: SHA256_HEX.source, description: `Lower-case hex SHA-256 of ${normalized}, UTF-8 encoded.` }) as const;

/** The contract's `hashed` object: each value the SHA-256 of the key's normalized form (affiliate-api.md, "Normalization before hashing"). */
@ApiSchema({ name: 'DupeCheckHashedKeys', description: 'A hashed key wins over the same raw key. Unknown keys are ignored.' })
export class HashedKeysDto {
  @ApiPropertyOptional(
    hex(
      'the email: trimmed, lower-case; for gmail.com and googlemail.com, dots and any +tag removed from the local part, domain gmail.com',
    ),
  )
  @WhenSent()
  @IsSha256Hex()
  email?: string;

  @ApiPropertyOptional(hex('the 10 US digits, no country code, no punctuation'))
  @WhenSent()
  @IsSha256Hex()
  phone?: string;

  @ApiPropertyOptional(hex('the last name: lower-case a-z only, accents removed, spaces, hyphens and apostrophes dropped'))
  @WhenSent()
  @IsSha256Hex()
  last_name?: string;

  @ApiPropertyOptional(hex('the 5-digit ZIP (a +4 dropped)'))
  @WhenSent()
  @IsSha256Hex()
  zip?: string;

  @ApiPropertyOptional(hex('the date of birth as YYYY-MM-DD (send `birth_year` with it)'))
  @WhenSent()
  @IsSha256Hex()
  dob?: string;

  @ApiPropertyOptional(hex('the four-digit birth year'))
  @WhenSent()
  @IsSha256Hex()
  birth_year?: string;

  @ApiPropertyOptional(hex('the four-digit high-school graduation year'))
  @WhenSent()
  @IsSha256Hex()
  grad_year?: string;

  @ApiPropertyOptional(
    hex(
      'the IP: first of a forwarded list; IPv4 dotted quad without leading zeros; IPv6 compressed lower-case; IPv4-mapped written as IPv4',
    ),
  )
  @WhenSent()
  @IsSha256Hex()
  ip?: string;
}

// Every hashed key of the domain (HASHED_KEYS) is a property above, and nothing else: checked when compiling.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const everyHashedKey: Same<keyof HashedKeysDto, HashedKey> = true;
void everyHashedKey;

/**
 * POST /api/v1/engine/dupe-check. Raw values are not validated here: one that
 * is not a string or cannot be normalized is simply not usable (see
 * parseDupeCheckRequest). The @ApiPropertyOptional decorators make this class
 * the request schema of the OpenAPI document (docs/openapi.md).
 */
@ApiSchema({
  name: 'DupeCheckRequest',
  description: 'At least one usable lead field, raw or hashed. Body at most 16 KB. Extra properties are allowed.',
})
export class DupeCheckRequestDto {
  @ApiPropertyOptional({ format: 'uuid', description: "One of the caller's offers, for an offer-scoped policy." })
  @WhenSent()
  @IsUUID('all', { message: 'offer_id must be a UUID' })
  offer_id?: string;

  @ApiPropertyOptional({ type: HashedKeysDto })
  @WhenSent()
  @IsObject({ message: 'hashed must be an object' })
  @ValidateNested()
  @Type(() => HashedKeysDto)
  hashed?: HashedKeysDto;

  @ApiPropertyOptional({ type: String, description: 'Raw.' }) email?: unknown;
  @ApiPropertyOptional({ type: String, description: 'Raw.' }) phone?: unknown;
  @ApiPropertyOptional({ type: String, description: 'Raw; never hashed.' }) first_name?: unknown;
  @ApiPropertyOptional({ type: String, description: 'Raw.' }) last_name?: unknown;
  @ApiPropertyOptional({ type: String, description: 'Raw.' }) zip?: unknown;
  @ApiPropertyOptional({ type: String, description: 'Raw street address; never hashed.' }) address?: unknown;
  @ApiPropertyOptional({ type: String, description: 'Raw: YYYY-MM-DD or MM/DD/YYYY.' }) dob?: unknown;
}
