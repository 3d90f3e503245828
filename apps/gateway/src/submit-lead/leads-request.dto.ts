import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsObject, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { LEAD_SCHEMA, refTo, TRACKING_SCHEMA } from '../openapi/lead-schemas';
import { ApiSchemaWith } from '../openapi/schema-keywords';

/** The fields that make a mode, described once for the request and for the mode that needs them. */
const MODE_FIELDS = {
  svc_result_id: { maxLength: 100, description: 'Result submit, required: the result to submit; the offer id is taken from it.' },
  search_lead_id: { format: 'uuid', description: 'Result submit, required: the search id the result came from (missing: 409).' },
  svc_offer_id: { format: 'uuid', description: 'Direct post, required: the offer to post to (not a partner offer).' },
  lead: { ...refTo(LEAD_SCHEMA), description: 'Direct post, required: the whole lead. Result submit: fields sent replace the search’s.' },
  tracking: { ...refTo(TRACKING_SCHEMA), description: 'Direct post, required (`tracking.ip_address` required).' },
};

/** A result submit: the result and its search; the lead, tracking and consumer IP come from the search. */
@ApiSchema({
  name: 'ResultSubmitMode',
  description: 'Result submit: `svc_result_id` and `search_lead_id`; the lead comes from the search.',
})
export class ResultSubmitMode {
  @ApiProperty(MODE_FIELDS.svc_result_id) svc_result_id: string;
  @ApiProperty(MODE_FIELDS.search_lead_id) search_lead_id: string;
}

/** A direct post: the offer, the whole lead and its tracking, and no `svc_result_id` (with one, it is a result submit). */
@ApiSchemaWith(
  {
    name: 'DirectPostMode',
    description: 'Direct post: `svc_offer_id`, `lead` and `tracking`, without `svc_result_id` (a request with one is a result submit).',
  },
  { not: { required: ['svc_result_id'], properties: { svc_result_id: {} } } },
)
export class DirectPostMode {
  @ApiProperty(MODE_FIELDS.svc_offer_id) svc_offer_id: string;
  @ApiProperty(MODE_FIELDS.lead) lead: Record<string, unknown>;
  @ApiProperty(MODE_FIELDS.tracking) tracking: Record<string, unknown>;
}

/** An answer to a result's question (libs/domain answers: checkAnswers). */
const ANSWER = {
  description:
    'An answer to a question of the result, under the question’s `name` (`form_fields[].name`); for a `select`, one of its ' +
    '`options[].value`. A number or boolean is taken as its text.',
  anyOf: [{ type: 'string', maxLength: 500 }, { type: 'number' }, { type: 'boolean' }],
};

/**
 * POST /api/v1/engine/leads: both modes (result submit, direct post), each a
 * schema of its own under `oneOf`. Answers to questions are extra top-level
 * keys. The @ApiProperty decorators make this class the request schema of the
 * OpenAPI document (docs/openapi.md).
 */
@ApiExtraModels(ResultSubmitMode, DirectPostMode)
@ApiSchemaWith(
  {
    name: 'LeadsRequest',
    description:
      'Two modes, one endpoint (`oneOf`). A result submit carries `svc_result_id` and `search_lead_id` (the lead comes from the search; ' +
      'a missing `search_lead_id` is 409). A direct post carries `svc_offer_id`, `lead` and `tracking`. Each answer to a ' +
      'result question is a top-level key named as the question (`form_fields[].name`).',
  },
  { additionalProperties: ANSWER, oneOf: [{ $ref: getSchemaPath(ResultSubmitMode) }, { $ref: getSchemaPath(DirectPostMode) }] },
)
export class LeadsRequestDto {
  @ApiProperty({ format: 'uuid', description: "Both modes. On a result submit, must be the result's campaign." })
  @IsDefined()
  @IsUUID('all', { message: 'svc_campaign_id must be a UUID' })
  svc_campaign_id: string;

  @ApiProperty({ format: 'uuid', description: "Both modes. Must be the key's affiliate." })
  @IsDefined()
  @IsUUID('all', { message: 'svc_affiliate_id must be a UUID' })
  svc_affiliate_id: string;

  @ApiPropertyOptional(MODE_FIELDS.svc_result_id)
  @IsOptional()
  @IsString({ message: 'svc_result_id must be a string' })
  @MaxLength(100)
  svc_result_id?: string;

  @ApiPropertyOptional(MODE_FIELDS.search_lead_id)
  @IsOptional()
  @IsUUID('all', { message: 'search_lead_id must be a UUID' })
  search_lead_id?: string;

  @ApiPropertyOptional(MODE_FIELDS.svc_offer_id)
  @IsOptional()
  @IsUUID('all', { message: 'svc_offer_id must be a UUID' })
  svc_offer_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Direct post, optional: the id returned earlier for this lead, sent on a retry.' })
  @IsOptional()
  @IsUUID('all', { message: 'svc_lead_id must be a UUID' })
  svc_lead_id?: string;

  @ApiPropertyOptional({ maxLength: 200, description: 'A `programs[].value` of the result (or the program on a direct post).' })
  @IsOptional()
  @IsString({ message: 'program_id must be a string' })
  @MaxLength(200)
  program_id?: string;

  @ApiPropertyOptional({ description: 'Consent is never taken from the search: sent with every submit.' })
  @IsOptional()
  @IsBoolean({ message: 'tcpa_consent must be a boolean' })
  tcpa_consent?: boolean;

  @ApiPropertyOptional({
    maxLength: 500,
    description: 'The label of the button the consumer pressed, for the statement shown with the result.',
  })
  @IsOptional()
  @IsString({ message: 'consent_button_label must be a string' })
  @MaxLength(500)
  consent_button_label?: string;

  @ApiPropertyOptional({ description: 'Test mode: the lead is held, never delivered nor counted.' })
  @IsOptional()
  @IsBoolean({ message: 'svc_is_test_lead must be a boolean' })
  svc_is_test_lead?: boolean;

  @ApiPropertyOptional(MODE_FIELDS.lead)
  @IsOptional()
  @IsObject({ message: 'lead must be an object' })
  lead?: Record<string, unknown>;

  @ApiPropertyOptional(MODE_FIELDS.tracking)
  @IsOptional()
  @IsObject({ message: 'tracking must be an object' })
  tracking?: Record<string, unknown>;

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
}
