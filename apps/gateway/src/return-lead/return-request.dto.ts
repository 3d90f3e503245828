import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsDefined, IsNotEmpty, IsString, IsUUID, MaxLength, ValidateIf } from 'class-validator';
import { RETURN_NOTE_MAX } from '@lr/domain';

/**
 * POST /api/v1/buyer/returns (docs/returns.md): a school returns a lead it
 * bought. Whether `reason` is one of the offer's codes is decided once the
 * lead is found (libs/domain returns). The @ApiProperty decorators make this
 * class the request schema of the OpenAPI document (docs/openapi.md).
 */
@ApiSchema({
  name: 'ReturnRequest',
  description: 'A return of one lead the school bought. Body at most 16 KB. Extra properties are ignored.',
})
export class ReturnRequestDto {
  @ApiProperty({ format: 'uuid', description: 'The `svc_lead_id` the school received with the lead (the submit’s lead id).' })
  @IsDefined()
  @IsUUID('all', { message: 'svc_lead_id must be a UUID' })
  svc_lead_id: string;

  @ApiProperty({ example: 'wrong_number', description: 'One of the offer’s return reason codes (the catalog’s `returns.reasons`).' })
  @IsDefined()
  @IsString({ message: 'reason must be a string' })
  @IsNotEmpty({ message: 'reason must not be empty' })
  reason: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: RETURN_NOTE_MAX,
    description: 'Free text for the service operator only; never shown to the affiliate.',
  })
  @ValidateIf((_o: object, v: unknown) => v !== undefined && v !== null)
  @MaxLength(RETURN_NOTE_MAX, { message: `note must be at most ${RETURN_NOTE_MAX} characters` })
  @IsString({ message: 'note must be a string' })
  note?: string | null;
}
