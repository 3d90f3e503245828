import type { ResultEntry, SubmitDecision } from '@lr/contracts';
import { amount, cents, Cents, ConsentEvidence, ConsentLedgerEntry, Decision, Lead, SealedContact, storedDecision, ZERO } from '@lr/domain';
import type { Queryable } from '../queries/queryable';
import { run, statement, type WithDocuments } from '../queries/sql';
import { searchDays } from '../partitions/partition-days';
import { CONSENT_APPEND, CONSENT_INSERT, consentParams, ledgerParams } from '../queries/consent-evidence';
import { SHOWN } from '../queries/shown-results';
import {
  contactParam,
  LEAD_INSERT,
  leadParams,
  NewLead,
  STORED_LEAD_COLUMNS,
  StoredLead,
  StoredLeadColumns,
  storedLeadOf,
} from '../queries/stored-lead';

/** A stored lead as the submit answer's decision (the submit reply and the lead-status read). */
export function decisionOf(l: StoredLead): SubmitDecision {
  const d = storedDecision(l);
  return {
    leadId: l.id,
    status: d.status,
    code: d.code,
    reason: d.reason,
    payout: l.status === 'accepted' ? (l.payout === null ? null : amount(l.payout)) : 0,
    isTest: l.isTest,
    decidedBy: l.decidedBy,
    decidedAt: l.decidedAt ? l.decidedAt.toISOString() : null,
    offerId: l.offerId,
    resultId: l.resultId,
    searchId: l.searchId,
    ...(l.field ? { field: l.field } : {}),
  };
}

/** What a submit is decided on besides the request and the catalog: the result and its search, or the earlier post a retry names; and whether this submit is stored already. */
export interface SubmitContext {
  stored: StoredLead | null;
  /** Result submit: the result as shown and its search. Null when unknown (or another affiliate's). */
  picked: {
    offerId: string;
    entry: ResultEntry;
    expiresAt: Date | null;
    partnerResultId: string | null;
    /** The search's readable part when `contact` holds its sealed part (libs/domain joinContact), else the whole. */
    searchLead: Lead;
    tracking: Record<string, string>;
    consumerIp: string;
    contact: SealedContact | null;
    ipSource: 'consumer' | 'caller_server';
    isTest: boolean;
    /** The search's lead was submitted (a sale reserved): its data may no longer change. */
    submitted: boolean;
    formCertUrl: string | null;
    universalLeadCert: string | null;
  } | null;
  /** Direct post retry: the post it names. Null when unknown (or not the caller's direct post). */
  origin: { leadGroupId: string; lead: Lead; contact: SealedContact | null; isTest: boolean } | null;
}

/** A reserved lead as delivery needs it again (a redelivered submit after its sale was reserved). */
export interface ReservedLead {
  /** The readable part when `contact` holds the sealed part, else the whole. */
  lead: Lead;
  contact: SealedContact | null;
  tracking: Record<string, string>;
  consumerIp: string;
  programId: string | null;
  answers: Record<string, string>;
  createdAt: Date;
  payout: Cents | null;
  consent: ConsentEvidence | null;
  partnerResultId: string | null;
  shownStatement: string | null;
}

/** The leads waiting for their buyer's answer (status `pending`): how many, and how long the oldest has waited. */
export interface PendingLeads {
  count: number;
  /** Seconds since the oldest one was submitted, by PostgreSQL's clock; 0 when there is none. */
  oldestSeconds: number;
}

/** Statements of this repository (prepared per connection: queries/sql.ts). */
const FIND_LEAD = statement('findLead', `SELECT ${STORED_LEAD_COLUMNS} FROM leads l WHERE l.id = $1`);

/** The lead with its return by the school, if any (lead_returns: docs/returns.md). */
const FIND_LEAD_WITH_RETURN = statement(
  'findLeadWithReturn',
  `SELECT ${STORED_LEAD_COLUMNS}, r.returned_at, r.reason AS returned_reason
         FROM leads l LEFT JOIN lead_returns r ON r.lead_id = l.id WHERE l.id = $1`,
);

const SUBMIT_CONTEXT = statement(
  'submitContext',
  `SELECT (SELECT row_to_json(x) FROM (SELECT ${STORED_LEAD_COLUMNS} FROM leads l WHERE l.id = $1) x) AS stored,
              (SELECT row_to_json(x) FROM (
                 SELECT t.offer_id, lr_result_entry(u.id, t.body, u.expires_at)::json AS entry, u.expires_at, s.result_partner -> u.id::text AS partner_data,
                        s.lead, s.tracking, s.consumer_ip, s.contact, s.ip_source, s.is_test,
                        s.submitted_at IS NOT NULL AS submitted, s.form_cert_url, s.universal_lead_cert
                   FROM searches s CROSS JOIN LATERAL ${SHOWN('s')}
                  WHERE s.id = $4 AND ${searchDays('s', '$4')} AND u.id = $3 AND s.affiliate_id = $2) x) AS picked,
              (SELECT row_to_json(x) FROM (
                 SELECT lead_group_id, lead, contact, is_test FROM leads WHERE id = $5 AND affiliate_id = $2 AND kind = 'direct_post') x) AS origin`,
);

const STORE_DECIDED = statement(
  'storeDecided',
  `WITH written AS (${LEAD_INSERT(1, 'true', '$36')}),
            consent AS (${CONSENT_INSERT('$1::uuid', 25, 'EXISTS (SELECT 1 FROM written)')}),
            chained AS (${CONSENT_APPEND('consent', 32)})
       SELECT row_to_json(x) AS lead FROM (
         SELECT ${STORED_LEAD_COLUMNS} FROM written l
         UNION ALL
         SELECT ${STORED_LEAD_COLUMNS} FROM leads l WHERE l.id = $1 AND NOT EXISTS (SELECT 1 FROM written)) x`,
);

const RESERVED_LEAD = statement(
  'reservedLead',
  `SELECT l.lead, l.contact, l.tracking, l.consumer_ip, l.program_id, l.answers, l.created_at, sa.payout, r.partner_data, r.entry->'offer'->>'tcpa_text' AS shown_statement,
              (SELECT row_to_json(c) FROM consent_evidence c WHERE c.lead_id = l.id) AS consent
         FROM leads l JOIN sales sa ON sa.lead_id = l.id AND sa.status = 'reserved'
         LEFT JOIN LATERAL (
           SELECT s.result_partner -> u.id::text AS partner_data, lr_result_entry(u.id, t.body, u.expires_at)::jsonb AS entry
             FROM searches s CROSS JOIN LATERAL ${SHOWN('s')}
            WHERE s.id = l.search_id AND ${searchDays('s', 'l.search_id')} AND u.id = l.result_id) r ON true
        WHERE l.id = $1 AND l.status = 'pending'`,
);

/** Served by the partial index ix_leads_pending_created_at alone (it holds only the pending leads). */
export const PENDING_LEADS = statement(
  'pendingLeads',
  `SELECT count(*)::int AS count, COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS oldest_seconds
         FROM leads WHERE status = 'pending'`,
);

/** The JSON documents SUBMIT_CONTEXT builds. */
interface SubmitContextDocuments {
  stored: StoredLeadColumns | null;
  picked: {
    offer_id: string;
    entry: ResultEntry;
    expires_at: string | null;
    partner_data: { partnerResultId?: string } | null;
    lead: Lead;
    tracking: Record<string, string>;
    consumer_ip: string;
    contact: SealedContact | null;
    ip_source: 'consumer' | 'caller_server';
    is_test: boolean;
    submitted: boolean;
    form_cert_url: string | null;
    universal_lead_cert: string | null;
  } | null;
  origin: { lead_group_id: string; lead: Lead; contact: SealedContact | null; is_test: boolean } | null;
}

/** The JSON documents RESERVED_LEAD builds or reads (its json columns). */
interface ReservedLeadDocuments {
  lead: Lead;
  contact: SealedContact | null;
  tracking: Record<string, string>;
  answers: Record<string, string>;
  partner_data: { partnerResultId?: string } | null;
  consent: {
    tcpa_consent: boolean;
    tcpa_text: string | null;
    button_label: string | null;
    ip: string;
    consented_at: string;
    form_cert_url: string | null;
    universal_lead_cert: string | null;
  } | null;
}

/**
 * Leads (`leads`): every submit and direct post is its own row, linked to its
 * search or to the first post of its group. A refused or held submit is
 * written once with its decision (with its consent evidence); a sold one is
 * written pending by the sale's reservation (SaleLedger) and decided when its
 * buyer answers.
 */
export class LeadRepository {
  constructor(private readonly db: Queryable) {}

  async find(leadId: string): Promise<StoredLead | null> {
    const rows = await run(this.db, FIND_LEAD, [leadId]);
    return rows[0] ? storedLeadOf(rows[0]) : null;
  }

  /** The lead and whether its school returned it (the lead-status read). */
  async findWithReturn(leadId: string): Promise<{ lead: StoredLead; returned: { at: Date; reason: string } | null } | null> {
    const rows = await run(this.db, FIND_LEAD_WITH_RETURN, [leadId]);
    const r = rows[0];
    if (!r) return null;
    return {
      lead: storedLeadOf(r),
      returned: r.returned_at && r.returned_reason ? { at: new Date(r.returned_at), reason: r.returned_reason } : null,
    };
  }

  /**
   * Everything a submit is decided on that is stored, in one statement: this
   * submit if it is stored already (a redelivery), the result with its search
   * (the caller's only), or the direct post a retry names.
   */
  async submitContext(q: {
    leadId: string;
    affiliateId: string;
    resultId: string | null;
    searchId: string | null;
    originLeadId: string | null;
  }): Promise<SubmitContext> {
    const rows = (await run(this.db, SUBMIT_CONTEXT, [q.leadId, q.affiliateId, q.resultId, q.searchId, q.originLeadId])) as Array<
      WithDocuments<'submitContext', SubmitContextDocuments>
    >;
    const r = rows[0];
    const p = r.picked;
    return {
      stored: r.stored ? storedLeadOf(r.stored) : null,
      picked: p
        ? {
            offerId: p.offer_id,
            entry: p.entry,
            expiresAt: p.expires_at === null ? null : new Date(p.expires_at),
            partnerResultId: p.partner_data?.partnerResultId ?? null,
            searchLead: p.lead,
            tracking: p.tracking,
            consumerIp: p.consumer_ip,
            contact: p.contact,
            ipSource: p.ip_source,
            isTest: p.is_test,
            submitted: p.submitted,
            formCertUrl: p.form_cert_url,
            universalLeadCert: p.universal_lead_cert,
          }
        : null,
      origin: r.origin
        ? { leadGroupId: r.origin.lead_group_id, lead: r.origin.lead, contact: r.origin.contact, isTest: r.origin.is_test }
        : null,
    };
  }

  /**
   * Writes a refused or held submit with its decision (payout 0) and consent
   * evidence (appended to the consent ledger for a live lead: `ledger`), in
   * one statement. Idempotent: a submit stored before (a twin of
   * the message) keeps its first decision, which is returned. A twin that
   * committed while this statement waited on its row is not in this
   * statement's snapshot: it is read again in a statement of its own.
   */
  async storeDecided(
    lead: NewLead,
    decision: Decision,
    consent: ConsentEvidence | null,
    ledger: ConsentLedgerEntry | null,
  ): Promise<StoredLead> {
    const rows = (await run(this.db, STORE_DECIDED, [
      ...leadParams(lead, decision, ZERO),
      ...consentParams(consent),
      ...ledgerParams(ledger),
      contactParam(lead), // $36
    ])) as Array<WithDocuments<'storeDecided', { lead: StoredLeadColumns }>>;
    if (rows[0]) return storedLeadOf(rows[0].lead);
    const twin = await this.find(lead.id);
    if (!twin) throw new Error(`lead ${lead.id} was neither written nor found`);
    return twin;
  }

  /** How many leads wait for their buyer's answer, and the age of the oldest (delivery's gauges, docs/observability.md). */
  async pending(): Promise<PendingLeads> {
    const [r] = await run(this.db, PENDING_LEADS);
    return { count: r.count ?? 0, oldestSeconds: Math.max(0, r.oldest_seconds ?? 0) };
  }

  /** A reserved (pending) lead as it was written, to send it to its buyer again after a redelivery. */
  async reserved(leadId: string): Promise<ReservedLead | null> {
    const rows = (await run(this.db, RESERVED_LEAD, [leadId])) as Array<WithDocuments<'reservedLead', ReservedLeadDocuments>>;
    const r = rows[0];
    if (!r) return null;
    return {
      lead: r.lead,
      contact: r.contact,
      tracking: r.tracking,
      consumerIp: r.consumer_ip,
      programId: r.program_id,
      answers: r.answers,
      createdAt: new Date(r.created_at),
      payout: r.payout === null ? null : cents(r.payout),
      partnerResultId: r.partner_data?.partnerResultId ?? null,
      shownStatement: r.shown_statement,
      consent: r.consent
        ? {
            tcpaConsent: r.consent.tcpa_consent,
            statement: r.consent.tcpa_text,
            buttonLabel: r.consent.button_label,
            ip: r.consent.ip,
            at: new Date(r.consent.consented_at).toISOString(),
            formCertUrl: r.consent.form_cert_url,
            universalLeadCert: r.consent.universal_lead_cert,
          }
        : null,
    };
  }
}
