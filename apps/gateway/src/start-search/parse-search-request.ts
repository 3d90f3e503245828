import { Lead, parseLead, parseTracking, Tracking } from '@lr/domain';
import { checkDto, requireObjectBody, throwIfProblems } from '../http/validation';
import { SearchRequestDto } from './search-request.dto';

export interface SearchRequest {
  campaignId: string;
  affiliateId: string;
  lead: Lead;
  tracking: Tracking;
  tcpaConsent: boolean | null;
  formCertUrl: string | null;
  universalLeadCert: string | null;
  isTest: boolean;
}

/** Validates a search body; throws the contract's 400 naming the first bad field. */
export function parseSearchRequest(body: unknown): SearchRequest {
  const { dto, problems } = checkDto(SearchRequestDto, requireObjectBody(body));
  const lead = dto.lead !== undefined && problems.every((p) => p.field !== 'lead') ? parseLead(dto.lead) : undefined;
  const tracking =
    dto.tracking !== undefined && problems.every((p) => p.field !== 'tracking') ? parseTracking(dto.tracking, true) : undefined;
  throwIfProblems([...problems, ...(lead?.errors ?? []), ...(tracking?.errors ?? [])]);
  return {
    campaignId: dto.svc_campaign_id.toLowerCase(),
    affiliateId: dto.svc_affiliate_id.toLowerCase(),
    lead: lead!.lead,
    tracking: tracking!.tracking,
    tcpaConsent: dto.tcpa_consent ?? null,
    formCertUrl: dto.form_cert_url ?? null,
    universalLeadCert: dto.universal_lead_cert ?? null,
    isTest: dto.svc_is_test_lead ?? false,
  };
}
