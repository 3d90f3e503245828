import { API_CODES, type ApiCode, type OutcomeStatus } from '@lr/contracts';
import type { RowTypes } from './row-types.generated';
import { cents, Cents, Decision, decimalText, Lead, SealedContact } from '@lr/domain';

/** A submit or direct post as its row is first written (the contract's `svc_lead_id` is `id`). */
export interface NewLead {
  id: string;
  kind: 'result_submit' | 'direct_post';
  searchId: string | null;
  resultId: string | null;
  affiliateId: string;
  campaignId: string;
  offerId: string;
  apiKeyId: string;
  programId: string | null;
  answers: Record<string, string>;
  /**
   * The lead as delivered (a result submit: the search's with the submit's
   * fields over it): its readable part when `contact` holds the sealed part
   * (libs/domain splitContact; `tracking` and `consumerIp` readable too).
   */
  lead: Lead;
  tracking: Record<string, string>;
  consumerIp: string;
  /** The contact data sealed under the lead's own data key; null: none kept (a suppressed person's). */
  contact: SealedContact | null;
  ipSource: 'consumer' | 'caller_server';
  isTest: boolean;
  createdAt: string;
  /** Whose sales count together: the search, or the first direct post. */
  leadGroupId: string;
  originLeadId: string | null;
}

/** A stored submit in the shape the submit answer and the lead-status read need. */
export interface StoredLead {
  id: string;
  kind: 'result_submit' | 'direct_post';
  affiliateId: string;
  campaignId: string;
  offerId: string;
  searchId: string | null;
  resultId: string | null;
  leadGroupId: string;
  isTest: boolean;
  status: OutcomeStatus;
  code: ApiCode | null;
  reason: string | null;
  payout: Cents | null;
  decidedBy: 'service' | 'buyer' | null;
  decidedAt: Date | null;
  field: string | null;
}

/** The columns of StoredLead, for every statement that returns one (aliased from `l`). */
export const STORED_LEAD_COLUMNS = `l.id, l.kind, l.affiliate_id, l.campaign_id, l.offer_id, l.search_id, l.result_id, l.lead_group_id, l.is_test,
       l.status, l.code, l.reason, l.payout, l.decided_by, l.decided_at, l.field`;

/**
 * A stored lead's columns (STORED_LEAD_COLUMNS) as a statement reads them
 * from `leads`, or as the JSON document of them that a statement builds
 * (row_to_json: the payout a number, the time text).
 */
export type StoredLeadColumns = Omit<RowTypes['findLead'], 'payout' | 'decided_at'> & {
  payout: string | number | null;
  decided_at: Date | string | null;
};

/** A lead's code as stored: written from the decision catalog's codes only. */
function apiCodeOf(code: string | null): ApiCode | null {
  if (code === null) return null;
  if (!(API_CODES as readonly string[]).includes(code)) throw new Error(`lead stored with an unknown code: ${code}`);
  return code as ApiCode;
}

export function storedLeadOf(r: StoredLeadColumns): StoredLead {
  return {
    id: r.id,
    kind: r.kind,
    affiliateId: r.affiliate_id,
    campaignId: r.campaign_id,
    offerId: r.offer_id,
    searchId: r.search_id,
    resultId: r.result_id,
    leadGroupId: r.lead_group_id,
    isTest: r.is_test,
    status: r.status,
    code: apiCodeOf(r.code),
    reason: r.reason,
    payout: r.payout === null ? null : cents(r.payout),
    decidedBy: r.decided_by,
    decidedAt: r.decided_at === null ? null : new Date(r.decided_at),
    field: r.field,
  };
}

/**
 * A data-modifying CTE body that writes lead `$first` (parameters from
 * leadParams: 24 in all; its sealed contact, contactParam, is the statement's
 * parameter `contact`), when `when` holds. A decided lead gets decided_at
 * now. A row that exists already keeps what it has, except a pending one
 * without a sale (stored pending by the previous release, before its checks
 * ran), which takes this decision.
 */
export const LEAD_INSERT = (first: number, when: string, contact: string) => {
  const p = (n: number) => `$${first + n}`;
  return `INSERT INTO leads (id, search_id, result_id, kind, affiliate_id, campaign_id, offer_id, api_key_id, program_id, answers, lead, tracking,
                             consumer_ip, ip_source, is_test, created_at, lead_group_id, origin_lead_id,
                             status, code, reason, field, decided_by, payout, decided_at, contact)
          SELECT ${p(0)}::uuid, ${p(1)}::uuid, ${p(2)}::uuid, ${p(3)}, ${p(4)}::uuid, ${p(5)}::uuid, ${p(6)}::uuid, ${p(7)}::uuid, ${p(8)},
                 ${p(9)}::jsonb, ${p(10)}::jsonb, ${p(11)}::jsonb, ${p(12)}, ${p(13)}, ${p(14)}::boolean, ${p(15)}::timestamptz, ${p(16)}::uuid, ${p(17)}::uuid,
                 ${p(18)}, ${p(19)}, ${p(20)}, ${p(21)}, ${p(22)}, ${p(23)}::numeric, CASE WHEN ${p(18)} = 'pending' THEN NULL ELSE now() END,
                 ${contact}::jsonb
           WHERE ${when}
          ON CONFLICT (id) DO UPDATE
            SET status = EXCLUDED.status, code = EXCLUDED.code, reason = EXCLUDED.reason, field = EXCLUDED.field,
                decided_by = EXCLUDED.decided_by, payout = EXCLUDED.payout, decided_at = EXCLUDED.decided_at,
                program_id = EXCLUDED.program_id, answers = EXCLUDED.answers
            WHERE leads.status = 'pending' AND NOT EXISTS (SELECT 1 FROM sales s WHERE s.lead_id = leads.id)
          RETURNING *`;
};

/** LEAD_INSERT's `contact` parameter. */
export function contactParam(l: NewLead): string | null {
  return l.contact === null ? null : JSON.stringify(l.contact);
}

/** The parameters of LEAD_INSERT: the lead, then its decision (the pending one for a sale just reserved). */
export function leadParams(l: NewLead, d: Decision, payout: Cents | null): unknown[] {
  return [
    l.id,
    l.searchId,
    l.resultId,
    l.kind,
    l.affiliateId,
    l.campaignId,
    l.offerId,
    l.apiKeyId,
    l.programId,
    JSON.stringify(l.answers),
    JSON.stringify(l.lead),
    JSON.stringify(l.tracking),
    l.consumerIp,
    l.ipSource,
    l.isTest,
    l.createdAt,
    l.leadGroupId,
    l.originLeadId,
    d.status,
    d.code,
    d.reason,
    d.field ?? null,
    d.status === 'pending' ? null : (d.decidedBy ?? 'service'),
    payout === null ? null : decimalText(payout),
  ];
}
