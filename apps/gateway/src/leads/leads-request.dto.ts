import { IsBoolean, IsDefined, IsObject, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';

/** POST /api/v1/engine/leads: both modes (result submit, direct post). Answers to questions are extra top-level keys. */
export class LeadsRequestDto {
  @IsDefined() @IsUUID('all', { message: 'svc_campaign_id must be a UUID' })
  svc_campaign_id: string;

  @IsDefined() @IsUUID('all', { message: 'svc_affiliate_id must be a UUID' })
  svc_affiliate_id: string;

  @IsOptional() @IsString({ message: 'svc_result_id must be a string' }) @MaxLength(100)
  svc_result_id?: string;

  @IsOptional() @IsUUID('all', { message: 'search_lead_id must be a UUID' })
  search_lead_id?: string;

  @IsOptional() @IsUUID('all', { message: 'svc_offer_id must be a UUID' })
  svc_offer_id?: string;

  @IsOptional() @IsUUID('all', { message: 'svc_lead_id must be a UUID' })
  svc_lead_id?: string;

  @IsOptional() @IsString({ message: 'program_id must be a string' }) @MaxLength(200)
  program_id?: string;

  @IsOptional() @IsBoolean({ message: 'tcpa_consent must be a boolean' })
  tcpa_consent?: boolean;

  @IsOptional() @IsString({ message: 'consent_button_label must be a string' }) @MaxLength(500)
  consent_button_label?: string;

  @IsOptional() @IsBoolean({ message: 'svc_is_test_lead must be a boolean' })
  svc_is_test_lead?: boolean;

  @IsOptional() @IsObject({ message: 'lead must be an object' })
  lead?: Record<string, unknown>;

  @IsOptional() @IsObject({ message: 'tracking must be an object' })
  tracking?: Record<string, unknown>;

  @IsOptional() @IsString() @MaxLength(2048)
  form_cert_url?: string;

  @IsOptional() @IsString() @MaxLength(2048)
  universal_lead_cert?: string;
}
