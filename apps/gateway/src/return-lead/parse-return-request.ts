import { checkDto, requireObjectBody, throwIfProblems } from '../http/validation';
import { ReturnRequestDto } from './return-request.dto';

export interface ParsedReturnRequest {
  /** Lower-case. */
  leadId: string;
  reason: string;
  note: string | null;
}

/** Validates a return body; throws the contract's 400 naming the first bad field (every problem under `errors`). */
export function parseReturnRequest(body: unknown): ParsedReturnRequest {
  const { dto, problems } = checkDto(ReturnRequestDto, requireObjectBody(body));
  throwIfProblems(problems);
  return { leadId: dto.svc_lead_id.toLowerCase(), reason: dto.reason, note: dto.note ?? null };
}
