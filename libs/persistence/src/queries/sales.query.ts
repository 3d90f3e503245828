import type { ApiCode, OutcomeStatus, SubmitDecision } from '@lr/contracts';
import type { LiveSale } from '@lr/domain';
import type { Queryable } from './queryable';

/** The lead group's live sales (the sales rules' input): reserved ones count, since a reservation holds its slot until released. */
export async function loadLiveSales(db: Queryable, leadGroupId: string): Promise<LiveSale[]> {
  const rows: Array<{ offer_id: string; school_id: string; offer_type: LiveSale['offerType'] }> = await db.query(
    `SELECT offer_id, school_id, offer_type FROM sales WHERE lead_group_id = $1 AND status <> 'released' ORDER BY created_at`,
    [leadGroupId],
  );
  return rows.map((r) => ({ offerId: r.offer_id, schoolId: r.school_id, offerType: r.offer_type }));
}

/** A stored submit or direct post in the shape the submit answer and the lead-status read need. */
export interface LeadDecisionRow {
  id: string;
  kind: 'result_submit' | 'direct_post';
  affiliateId: string;
  campaignId: string;
  offerId: string;
  searchId: string | null;
  resultId: string | null;
  leadGroupId: string;
  lead: Record<string, unknown>;
  programId: string | null;
  answers: Record<string, string>;
  isTest: boolean;
  status: string;
  code: string | null;
  reason: string | null;
  payout: number | null;
  decidedBy: 'service' | 'buyer' | null;
  decidedAt: Date | null;
  field: string | null;
}

export async function findLead(db: Queryable, leadId: string): Promise<LeadDecisionRow | null> {
  const rows: Array<Record<string, unknown>> = await db.query(
    `SELECT id, kind, affiliate_id, campaign_id, offer_id, search_id, result_id, lead_group_id, lead, program_id, answers, is_test, status, code, reason,
            payout, decided_by, decided_at, field
       FROM leads WHERE id = $1`,
    [leadId],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.id as string,
    kind: r.kind as LeadDecisionRow['kind'],
    affiliateId: r.affiliate_id as string,
    campaignId: r.campaign_id as string,
    offerId: r.offer_id as string,
    searchId: r.search_id as string | null,
    resultId: r.result_id as string | null,
    leadGroupId: r.lead_group_id as string,
    lead: r.lead as Record<string, unknown>,
    programId: r.program_id as string | null,
    answers: r.answers as Record<string, string>,
    isTest: r.is_test as boolean,
    status: r.status as string,
    code: r.code as string | null,
    reason: r.reason as string | null,
    payout: r.payout === null ? null : Number(r.payout),
    decidedBy: r.decided_by as LeadDecisionRow['decidedBy'],
    decidedAt: r.decided_at as Date | null,
    field: r.field as string | null,
  };
}

/** A stored lead as the submit answer's decision (the submit reply and the lead-status read). */
export function leadDecision(row: LeadDecisionRow): SubmitDecision {
  return {
    leadId: row.id,
    status: row.status as OutcomeStatus,
    code: (row.code ?? 'PENDING') as ApiCode,
    reason: row.reason ?? 'Lead pending',
    payout: row.status === 'accepted' ? row.payout : 0,
    isTest: row.isTest,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt ? new Date(row.decidedAt).toISOString() : null,
    offerId: row.offerId,
    resultId: row.resultId,
    searchId: row.searchId,
    ...(row.field ? { field: row.field } : {}),
  };
}
