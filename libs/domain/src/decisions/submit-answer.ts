import type { ApiCode, OutcomeStatus, SubmitDecision } from '../vocabulary/answers';
import { SUBMIT } from './decision-catalog';

/** The contract's submit answer ("Submit answer"), as the leads endpoint and the lead-status read send it. */
export interface SubmitAnswerBody {
  code: ApiCode;
  status: OutcomeStatus;
  reason: string;
  source?: 'buyer';
  success: boolean;
  accepted: boolean;
  retryable: false;
  svc_lead_id: string;
  payout?: number;
  message: string;
  field?: string;
  disposition: SubmitDisposition;
  submitted?: false;
  test_lead?: true;
}

/**
 * The lead-status read (an addition to the contract: docs/submit.md): the
 * submit answer as it stands, and the lead's return by its school, null when
 * it was not returned (docs/returns.md). Additive: a client that ignores
 * `returned` reads a submit answer.
 */
export interface LeadStatusBody extends SubmitAnswerBody {
  returned: { at: string; reason: string } | null;
}

/** The lead-status answer of a decision and the lead's return (null: not returned). */
export function leadStatusAnswer(d: SubmitDecision, returned: { at: Date; reason: string } | null): LeadStatusBody {
  return { ...submitAnswer(d).body, returned: returned ? { at: returned.at.toISOString(), reason: returned.reason } : null };
}

/** The contract leaves `disposition`'s contents open; these are what the service puts there. */
export interface SubmitDisposition {
  decided_by: 'service' | 'buyer' | null;
  decided_at: string | null;
  offer_id: string;
  svc_result_id?: string;
  search_lead_id?: string | null;
}

/**
 * The contract's submit answer for a decision (affiliate-api.md, "Submit
 * answer"; docs/submit.md). `payout`: the booked payout when accepted (absent
 * when none is configured), 0 otherwise. `source: "buyer"` only on refusals the
 * buyer's system decided (never on CAP_REACHED). A test lead that passed every
 * check is held: `success` and `accepted` as a live acceptance would answer,
 * plus `submitted: false` and `test_lead: true`.
 */
export function submitAnswer(d: SubmitDecision): { httpStatus: 200 | 202; body: SubmitAnswerBody } {
  const held = d.code === SUBMIT.testLeadHeld.code;
  const accepted = d.status === 'accepted' || held;
  const pending = d.status === 'pending';
  const body: SubmitAnswerBody = {
    code: d.code,
    status: d.status,
    reason: d.reason,
    ...(d.decidedBy === 'buyer' && d.status === 'rejected' ? { source: 'buyer' } : {}),
    success: accepted || pending,
    accepted,
    retryable: false,
    svc_lead_id: d.leadId,
    ...(d.status === 'accepted' ? (d.payout === null ? {} : { payout: d.payout }) : { payout: 0 }),
    message: messageOf(d),
    ...(d.field ? { field: d.field } : {}),
    disposition: {
      decided_by: d.decidedBy,
      decided_at: d.decidedAt,
      offer_id: d.offerId,
      ...(d.resultId ? { svc_result_id: d.resultId, search_lead_id: d.searchId } : {}),
    },
    ...(d.isTest ? { submitted: false, test_lead: true } : {}),
  };
  return { httpStatus: pending ? (SUBMIT.pending.http as 202) : 200, body };
}

/** A longer sentence for people reading logs; clients act on `status` and `code`. */
function messageOf(d: SubmitDecision): string {
  switch (d.status) {
    case 'pending':
      return `The buyer has not answered yet; GET /api/v1/engine/leads/${d.leadId} returns the decision`;
    case 'accepted':
      return 'The lead was accepted by the buyer';
    case 'held':
      return 'Test lead: checks passed; not delivered and not counted';
    case 'invalid':
      return `The submit is incomplete or invalid: ${d.reason}`;
    default:
      return d.decidedBy === 'buyer' ? `The buyer's system did not take the lead: ${d.reason}` : `The lead was not sent: ${d.reason}`;
  }
}

/** The answer while the decision is still being made (the gateway stopped waiting). */
export function pendingDecision(
  leadId: string,
  offerId: string,
  resultId: string | null,
  searchId: string | null,
  isTest: boolean,
): SubmitDecision {
  const d = SUBMIT.pending;
  return {
    leadId,
    status: d.status,
    code: d.code,
    reason: d.reason,
    payout: 0,
    isTest,
    decidedBy: null,
    decidedAt: null,
    offerId,
    resultId,
    searchId,
  };
}
