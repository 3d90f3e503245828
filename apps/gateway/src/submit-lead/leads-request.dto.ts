import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsObject, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { LEAD_SCHEMA, refTo, TRACKING_SCHEMA } from '../openapi/lead-schemas';

/**
 * POST /api/v1/engine/leads: both modes (result submit, direct post). Answers to
 * questions are extra top-level keys. The @ApiProperty decorators make this
 * class the request schema of the OpenAPI document (docs/openapi.md).
 */
@ApiSchema({
  name: 'LeadsRequest',
  description:
    'Two modes, one endpoint. A result submit carries `svc_result_id` and `search_lead_id` (the lead comes from the search; ' +
    'a missing `search_lead_id` is 409). A direct post carries `svc_offer_id`, `lead` and `tracking`. Each answer to a ' +
    'result question is a top-level key named as the question (`form_fields[].name`).',
})
export class LeadsRequestDto {
  @ApiProperty({ format: 'uuid', description: "Both modes. On a result submit, must be the result's campaign." })
  @IsDefined() @IsUUID('all', { message: 'svc_campaign_id must be a UUID' })
  svc_campaign_id: string;

  @ApiProperty({ format: 'uuid', description: "Both modes. Must be the key's affiliate." })
  @IsDefined() @IsUUID('all', { message: 'svc_affiliate_id must be a UUID' })
  svc_affiliate_id: string;

  @ApiPropertyOptional({ maxLength: 100, description: 'Result submit, required: the result to submit; the offer id is taken from it.' })
  @IsOptional() @IsString({ message: 'svc_result_id must be a string' }) @MaxLength(100)
  svc_result_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Result submit, required: the search id the result came from.' })
  @IsOptional() @IsUUID('all', { message: 'search_lead_id must be a UUID' })
  search_lead_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Direct post, required: the offer to post to (not a partner offer).' })
  @IsOptional() @IsUUID('all', { message: 'svc_offer_id must be a UUID' })
  svc_offer_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Direct post, optional: the id returned earlier for this lead, sent on a retry.' })
  @IsOptional() @IsUUID('all', { message: 'svc_lead_id must be a UUID' })
  svc_lead_id?: string;

  @ApiPropertyOptional({ maxLength: 200, description: 'A `programs[].value` of the result (or the program on a direct post).' })
  @IsOptional() @IsString({ message: 'program_id must be a string' }) @MaxLength(200)
  program_id?: string;

  @ApiPropertyOptional({ description: 'Consent is never taken from the search: sent with every submit.' })
  @IsOptional() @IsBoolean({ message: 'tcpa_consent must be a boolean' })
  tcpa_consent?: boolean;

  @ApiPropertyOptional({ maxLength: 500, description: 'The label of the button the consumer pressed, for the statement shown with the result.' })
  @IsOptional() @IsString({ message: 'consent_button_label must be a string' }) @MaxLength(500)
  consent_button_label?: string;

  @ApiPropertyOptional({ description: 'Test mode: the lead is held, never delivered nor counted.' })
  @IsOptional() @IsBoolean({ message: 'svc_is_test_lead must be a boolean' })
  svc_is_test_lead?: boolean;

  @ApiPropertyOptional({ ...refTo(LEAD_SCHEMA), description: 'Direct post, required: the whole lead. Result submit: fields sent replace the search’s.' })
  @IsOptional() @IsObject({ message: 'lead must be an object' })
  lead?: Record<string, unknown>;

  @ApiPropertyOptional({ ...refTo(TRACKING_SCHEMA), description: 'Direct post, required (`tracking.ip_address` required).' })
  @IsOptional() @IsObject({ message: 'tracking must be an object' })
  tracking?: Record<string, unknown>;

  @ApiPropertyOptional({ maxLength: 2048, description: 'Consent certificate.' })
  @IsOptional() @IsString() @MaxLength(2048)
  form_cert_url?: string;

  @ApiPropertyOptional({ maxLength: 2048, description: 'Consent certificate.' })
  @IsOptional() @IsString() @MaxLength(2048)
  universal_lead_cert?: string;
}
