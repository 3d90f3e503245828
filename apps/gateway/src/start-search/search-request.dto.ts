import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsObject, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { LEAD_SCHEMA, refTo, TRACKING_SCHEMA } from '../openapi/lead-schemas';
import { ApiSchemaWith } from '../openapi/schema-keywords';

/**
 * POST /api/v1/engine/search (contract: Endpoints). `lead` and `tracking` are
 * checked field by field in libs/domain. The @ApiProperty decorators make this
 * class the request schema of the OpenAPI document (docs/openapi.md): every
 * @IsDefined field is an @ApiProperty, every @IsOptional one an @ApiPropertyOptional.
 */
@ApiSchemaWith(
  { name: 'SearchRequest', description: 'A search for one lead on one campaign. Extra properties are allowed (and ignored).' },
  { additionalProperties: true },
)
export class SearchRequestDto {
  @ApiProperty({ format: 'uuid', description: 'Campaign the request is for. The service never picks a campaign.' })
  @IsDefined()
  @IsUUID('all', { message: 'svc_campaign_id must be a UUID' })
  svc_campaign_id: string;

  @ApiProperty({ format: 'uuid', description: 'Must be the affiliate the API key belongs to.' })
  @IsDefined()
  @IsUUID('all', { message: 'svc_affiliate_id must be a UUID' })
  svc_affiliate_id: string;

  @ApiProperty({ ...refTo(LEAD_SCHEMA), description: 'The consumer: nested groups, flat keys, or both.' })
  @IsDefined()
  @IsObject({ message: 'lead must be an object' })
  lead: Record<string, unknown>;

  @ApiProperty({ ...refTo(TRACKING_SCHEMA), description: '`tracking.ip_address` is required.' })
  @IsDefined()
  @IsObject({ message: 'tracking must be an object' })
  tracking: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Consent decision, when collected before the search.' })
  @IsOptional()
  @IsBoolean({ message: 'tcpa_consent must be a boolean' })
  tcpa_consent?: boolean;

  @ApiPropertyOptional({ maxLength: 2048, description: 'Consent certificate.' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  form_cert_url?: string;

  @ApiPropertyOptional({ maxLength: 2048, description: 'Consent certificate.' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  universal_lead_cert?: string;

  @ApiPropertyOptional({ description: 'Test mode: every ranked offer is listed, buyers are never contacted.' })
  @IsOptional()
  @IsBoolean({ message: 'svc_is_test_lead must be a boolean' })
  svc_is_test_lead?: boolean;
}
