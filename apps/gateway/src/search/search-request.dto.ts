import { IsBoolean, IsDefined, IsObject, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';

/** POST /api/v1/engine/search (contract: Endpoints). `lead` and `tracking` are checked field by field in libs/domain. */
export class SearchRequestDto {
  @IsDefined() @IsUUID('all', { message: 'svc_campaign_id must be a UUID' })
  svc_campaign_id: string;

  @IsDefined() @IsUUID('all', { message: 'svc_affiliate_id must be a UUID' })
  svc_affiliate_id: string;

  @IsDefined() @IsObject({ message: 'lead must be an object' })
  lead: Record<string, unknown>;

  @IsDefined() @IsObject({ message: 'tracking must be an object' })
  tracking: Record<string, unknown>;

  @IsOptional() @IsBoolean({ message: 'tcpa_consent must be a boolean' })
  tcpa_consent?: boolean;

  @IsOptional() @IsString() @MaxLength(2048)
  form_cert_url?: string;

  @IsOptional() @IsString() @MaxLength(2048)
  universal_lead_cert?: string;

  @IsOptional() @IsBoolean({ message: 'svc_is_test_lead must be a boolean' })
  svc_is_test_lead?: boolean;
}
