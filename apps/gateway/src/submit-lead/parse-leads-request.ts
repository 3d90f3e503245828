import { Lead, parseLead, parseTracking, Tracking } from '@lr/domain';
import { ApiError } from '../http/api-error';
import { checkDto, FieldProblem, requireObjectBody, throwIfProblems } from '../http/validation';
import { LeadsRequestDto } from './leads-request.dto';
import { REFUSAL } from '@lr/domain';

export type LeadsRequest =
  | { mode: 'result_submit'; dto: LeadsRequestDto; resultId: string; searchId: string; lead?: Lead; answers: Record<string, unknown> }
  | { mode: 'direct_post'; dto: LeadsRequestDto; offerId: string; lead: Lead; tracking: Tracking; answers: Record<string, unknown> };

const ENVELOPE_KEYS = new Set([
  'svc_campaign_id',
  'svc_affiliate_id',
  'svc_result_id',
  'search_lead_id',
  'svc_offer_id',
  'svc_lead_id',
  'program_id',
  'tcpa_consent',
  'consent_button_label',
  'svc_is_test_lead',
  'lead',
  'tracking',
  'form_cert_url',
  'universal_lead_cert',
]);

/**
 * Validates a leads body (contract: POST /api/v1/engine/leads). A result submit
 * without `search_lead_id` is 409 MALFORMED_REQUEST; a direct post needs
 * `svc_offer_id`, `lead` and `tracking` (with `tracking.ip_address`). A key
 * sent as null counts as not sent (the DTO's optional fields let null through).
 */
export function parseLeadsRequest(body: unknown): LeadsRequest {
  const obj = requireObjectBody(body);
  const { dto, problems } = checkDto(LeadsRequestDto, obj);
  const answers = Object.fromEntries(Object.entries(obj).filter(([k]) => !ENVELOPE_KEYS.has(k)));
  throwIfProblems(problems);
  if (dto.svc_result_id != null) {
    if (dto.search_lead_id == null) {
      throw ApiError.of(REFUSAL.searchLeadIdMissing);
    }
    const lead = dto.lead != null ? parseLead(dto.lead) : undefined;
    throwIfProblems(lead?.errors ?? []);
    return {
      mode: 'result_submit',
      dto,
      resultId: dto.svc_result_id,
      searchId: dto.search_lead_id.toLowerCase(),
      lead: lead?.lead,
      answers,
    };
  }
  const missing: FieldProblem[] = [];
  for (const f of ['svc_offer_id', 'lead', 'tracking'] as const) {
    if (dto[f] == null) {
      const field = f === 'svc_offer_id' && dto.lead == null && dto.tracking == null ? 'svc_result_id or svc_offer_id' : f;
      missing.push({ field, code: 'REQUIRED_FIELD_MISSING', message: `Missing field ${field}` });
    }
  }
  throwIfProblems(missing);
  const lead = parseLead(dto.lead);
  const tracking = parseTracking(dto.tracking, true);
  throwIfProblems([...lead.errors, ...tracking.errors]);
  return { mode: 'direct_post', dto, offerId: dto.svc_offer_id!.toLowerCase(), lead: lead.lead, tracking: tracking.tracking, answers };
}
