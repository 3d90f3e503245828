import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, ValidateNested } from 'class-validator';
import { IsSha256Hex, SHA256_HEX, WhenSent } from '../http/dto-checks';
import type { OptOutKeyType } from '@lr/domain';

/** The hashed email and phone, normalized as for the duplicate pre-check (affiliate-api.md, "Normalization before hashing"). */
@ApiSchema({ name: 'OptOutHashedKeys', description: 'A hashed key wins over the same raw key. Unknown keys are ignored.' })
export class OptOutHashedKeysDto {
  @ApiPropertyOptional({
    type: String,
    pattern: SHA256_HEX.source,
    description: 'Lower-case hex SHA-256 of the normalized email (as for dupe-check).',
  })
  @WhenSent()
  @IsSha256Hex()
  email?: string;

  @ApiPropertyOptional({
    type: String,
    pattern: SHA256_HEX.source,
    description: 'Lower-case hex SHA-256 of the 10 US digits of the phone.',
  })
  @WhenSent()
  @IsSha256Hex()
  phone?: string;
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const everyKey: Same<keyof OptOutHashedKeysDto, OptOutKeyType> = true;
void everyKey;

/**
 * POST /api/v1/engine/opt-outs (docs/opt-outs.md). Raw values are not
 * validated here: one that is not a string or cannot be normalized is simply
 * not usable (parseOptOutRequest). This class is the request schema of the
 * OpenAPI document.
 */
@ApiSchema({
  name: 'OptOutRequest',
  description:
    'The person who asked to stop: an email or a phone, raw or hashed (at least one usable). Body at most 16 KB. Extra properties are allowed.',
})
export class OptOutRequestDto {
  @ApiPropertyOptional({ type: String, description: 'Raw email; normalized and hashed as for dupe-check, never stored raw.' })
  email?: unknown;

  @ApiPropertyOptional({ type: String, description: 'Raw US phone; normalized to its 10 digits and hashed, never stored raw.' })
  phone?: unknown;

  @ApiPropertyOptional({ type: OptOutHashedKeysDto })
  @WhenSent()
  @IsObject({ message: 'hashed must be an object' })
  @ValidateNested()
  @Type(() => OptOutHashedKeysDto)
  hashed?: OptOutHashedKeysDto;
}
