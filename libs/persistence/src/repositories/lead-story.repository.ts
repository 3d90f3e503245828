import { capScope, Lead } from '@lr/domain';
import { DataSource, EntityManager } from 'typeorm';
import { searchDays } from '../partitions/partition-days';
import type { RowTypes } from '../queries/row-types.generated';
import { inLeadGroup, partnerCallsOf, type StoryPartnerCallRow } from '../queries/lead-group';
import { filled, run, statement, type WithDocuments } from '../queries/sql';
import { OFFER_DECISIONS } from '../queries/shown-results';

/**
 * The read model behind `ops lead show` (docs/operator-cli.md): everything
 * stored about one lead group, across `leads`, `searches`, `results`,
 * `search_partner_calls`, `sales`, `lead_returns`, `cap_usage`, `caps`, `consent_evidence`,
 * `delivery_attempts` and `dedupe_keys`, as rows. It only reads; what is shown
 * and how (masking, formatting) is the CLI's.
 */

/** The search of the group, with its affiliate's and campaign's names and its key's prefix (`searches`). */
export type StorySearchRow = WithDocuments<'storySearch', { lead: Lead; tracking: Record<string, string> | null }>;

/** A submit or direct post of the group (`leads`), with its offer's, school's, affiliate's and campaign's names. */
export type StorySubmitRow = WithDocuments<
  'storySubmits',
  { answers: Record<string, string> | null; lead: Lead; tracking: Record<string, string> | null }
>;

/** A result of the search (`results`), with its place in the list every poll showed. */
export type StoryResultRow = WithDocuments<
  'storyResults',
  {
    id: string;
    offer_id: string;
    /** The result entry as shown (school, payout, programs among its fields). */
    entry: StoryResultEntry | null;
    created_at: Date;
  }
>;

export interface StoryResultEntry {
  school?: { name?: string | null } | null;
  payout?: number | string | null;
  programs?: Array<{ value: string; label: string; payout?: number | string | null }> | null;
}

/** One offer's search-time decision (a key of `searches.offer_decisions`), with the offer's name when it still exists. */
export type StoryOfferCheckRow = WithDocuments<
  'storyOfferChecks',
  { offer_id: string; decision: { shown?: boolean; result_id?: string; reason?: string; detail?: string; partner?: string } | null }
>;

/** A submit's consent evidence (`consent_evidence`). */
export type StoryConsentRow = RowTypes['storyConsents'];

/** A submit's sale (`sales`), with the cap slots it took. */
export type StorySaleRow = WithDocuments<
  'storySales',
  {
    /** In the order the sale took them. */
    slots: StoryCapSlot[];
  }
>;

/** A cap slot a sale took (`sales.cap_slots`), with its count now (`cap_usage`) and its cap's limit now (`caps`). */
export interface StoryCapSlot {
  scope: string;
  period: string;
  /** As stored in the sale. */
  period_start: string;
  /** Null when the slot's `cap_usage` row is gone. */
  used_now: number | null;
  /** Null when the cap has since been removed. */
  limit: number | null;
}

/** A submit's return by its school (`lead_returns`, docs/returns.md). */
export type StoryReturnRow = WithDocuments<'storyReturns', { cap_slots: Array<{ scope: string; period: string; period_start: string }> }>;

/** A delivery attempt of a submit (`delivery_attempts`). */
export type StoryAttemptRow = RowTypes['storyAttempts'];

/** The dedupe keys a submit holds (`dedupe_keys`): their types, sorted. */
export type StoryDedupeRow = WithDocuments<'storyDedupeKeys', { key_types: string[] }>;

/** Everything read for one lead group, from one snapshot. */
export interface LeadStoryRows {
  /** What the id asked for turned out to be. */
  is: 'search' | 'submit';
  /** The search, or the first direct post. */
  groupId: string;
  search: StorySearchRow | null;
  /** Oldest first. */
  submits: StorySubmitRow[];
  /** In the order every poll showed them, then the others. */
  results: StoryResultRow[];
  /** Shown first, then by offer name. */
  offerChecks: StoryOfferCheckRow[];
  /** By request time, then partner name. */
  partnerCalls: StoryPartnerCallRow[];
  /** Of the submits: */
  consents: StoryConsentRow[];
  sales: StorySaleRow[];
  returns: StoryReturnRow[];
  /** By submit, then attempt. */
  attempts: StoryAttemptRow[];
  dedupeKeys: StoryDedupeRow[];
}

const SEARCH = statement(
  'storySearch',
  `SELECT s.id, s.affiliate_id, a.name AS affiliate_name, s.campaign_id, c.name AS campaign_name, s.api_key_id, k.key_prefix,
          s.is_test, s.lead, s.contact IS NOT NULL AS sealed, s.tracking, s.consumer_ip, s.ip_source, s.tcpa_consent, s.form_cert_url, s.universal_lead_cert,
          s.created_at, s.closes_at, s.processing_done_at, s.submitted_at, s.accepted_count, s.true_exclusive_accepted
     FROM searches s
     JOIN affiliates a ON a.id = s.affiliate_id
     JOIN campaigns c ON c.id = s.campaign_id
     LEFT JOIN api_keys k ON k.id = s.api_key_id
    WHERE s.id = $1 AND ${searchDays('s', '$1')}`,
);

/** Every submit and direct post of the group, oldest first. */
const SUBMITS = statement(
  'storySubmits',
  `SELECT l.id, l.kind, l.origin_lead_id, l.result_id, l.offer_id, o.name AS offer_name, o.source AS offer_source, sc.name AS school_name,
          l.affiliate_id, a.name AS affiliate_name, l.campaign_id, c.name AS campaign_name, l.api_key_id, l.program_id, l.answers,
          l.lead, l.contact IS NOT NULL AS sealed, l.tracking, l.consumer_ip, l.ip_source, l.is_test, l.status, l.code, l.reason, l.field, l.decided_by, l.decided_at,
          l.payout, l.created_at
     FROM leads l
     JOIN offers o ON o.id = l.offer_id
     JOIN schools sc ON sc.id = o.school_id
     JOIN affiliates a ON a.id = l.affiliate_id
     JOIN campaigns c ON c.id = l.campaign_id
    WHERE l.lead_group_id = $1
    ORDER BY l.created_at, l.id`,
);

/** The search's results, in the order every poll showed them (`result_order`). */
const RESULTS = statement(
  'storyResults',
  `SELECT r.id, r.rank, r.offer_id, o.name AS offer_name, o.source, o.offer_type,
          sc.name AS school_name, p.name AS partner_name, r.entry, r.created_at, r.expires_at
     FROM results r
     JOIN offers o ON o.id = r.offer_id
     JOIN schools sc ON sc.id = o.school_id
     LEFT JOIN partners p ON p.id = o.partner_id
    WHERE r.search_id = $1 AND ${searchDays('r', '$1')}
    ORDER BY r.rank`,
);

/** The search's per-offer decisions (`offer_decisions`): shown ones first, then by offer name. */
const OFFER_CHECKS = statement(
  'storyOfferChecks',
  `SELECT d.key AS offer_id, o.name AS offer_name, d.value AS decision
     FROM searches s
     CROSS JOIN LATERAL jsonb_each(${OFFER_DECISIONS('s')}) AS d
     LEFT JOIN offers o ON o.id::text = d.key
    WHERE s.id = $1 AND ${searchDays('s', '$1')}
    ORDER BY (d.value->>'shown')::boolean DESC, o.name, d.key`,
);

const CONSENTS = statement(
  'storyConsents',
  `SELECT lead_id, tcpa_consent, tcpa_text, button_label, ip, consented_at, form_cert_url, universal_lead_cert
     FROM consent_evidence WHERE lead_id = ANY($1::uuid[])`,
);

/** The submits' sales, each cap slot it took with the slot's count now. */
const SALES = statement(
  'storySales',
  `SELECT sa.id, sa.lead_id, sa.offer_id, sa.campaign_id, sa.status, sa.offer_type, sa.payout, sa.price, sa.created_at, sa.updated_at,
          COALESCE((
            SELECT jsonb_agg(jsonb_build_object(
                     'scope', x.slot->>'scope', 'period', x.slot->>'period', 'period_start', x.slot->>'period_start',
                     'used_now', u.used) ORDER BY x.ord)
              FROM jsonb_array_elements(sa.cap_slots) WITH ORDINALITY AS x(slot, ord)
              LEFT JOIN cap_usage u
                ON u.scope = x.slot->>'scope' AND u.period = x.slot->>'period' AND u.period_start = (x.slot->>'period_start')::timestamptz
          ), '[]'::jsonb) AS slots
     FROM sales sa
    WHERE sa.lead_id = ANY($1::uuid[])`,
);

/** The caps of the sales' offers now. */
const CAPS = statement('storyCaps', `SELECT offer_id, campaign_id, period, "limit" FROM caps WHERE offer_id = ANY($1::uuid[])`);

const RETURNS = statement(
  'storyReturns',
  `SELECT lead_id, returned_at, reason, note, source, payout_reversal, price_reversal, cap_slots FROM lead_returns WHERE lead_id = ANY($1::uuid[])`,
);

const ATTEMPTS = statement(
  'storyAttempts',
  `SELECT lead_id, attempt, started_at, finished_at, outcome, http_status, latency_ms, detail
     FROM delivery_attempts WHERE lead_id = ANY($1::uuid[]) ORDER BY lead_id, attempt`,
);

const DEDUPE_KEYS = statement(
  'storyDedupeKeys',
  `SELECT lead_id, array_agg(key_type ORDER BY key_type) AS key_types FROM dedupe_keys WHERE lead_id = ANY($1::uuid[]) GROUP BY lead_id`,
);

export class LeadStoryRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * The rows of a search id's or a submit's lead id's group; null when the id
   * is neither. One consistent snapshot (REPEATABLE READ, read only), one
   * statement per table, never one per row.
   */
  async read(id: string): Promise<LeadStoryRows | null> {
    return inLeadGroup(this.ds, id, async (em, found) => {
      const groupId = found.groupId;
      const search = await searchOf(em, groupId);
      const submits = await submitsOf(em, groupId);
      const searchId = search?.id ?? null;
      const leadIds = submits.map((r) => r.id);
      return {
        is: found.is,
        groupId,
        search,
        submits,
        results: await resultsOf(em, searchId),
        offerChecks: await offerChecksOf(em, searchId),
        partnerCalls: await partnerCallsOf(em, searchId),
        consents: await run(em, CONSENTS, [leadIds]),
        sales: await salesOf(em, leadIds),
        returns: (await run(em, RETURNS, [leadIds])) as StoryReturnRow[],
        attempts: await run(em, ATTEMPTS, [leadIds]),
        dedupeKeys: (await run(em, DEDUPE_KEYS, [leadIds])).map((r) => ({ lead_id: r.lead_id, key_types: r.key_types ?? [] })),
      };
    });
  }
}

/** The search with this id, null when there is none (the group began with a direct post). */
async function searchOf(em: EntityManager, searchId: string): Promise<StorySearchRow | null> {
  const rows = (await run(em, SEARCH, [searchId])) as Array<WithDocuments<'storySearch', Pick<StorySearchRow, 'lead' | 'tracking'>>>;
  return rows[0] ?? null;
}

async function submitsOf(em: EntityManager, groupId: string): Promise<StorySubmitRow[]> {
  return (await run(em, SUBMITS, [groupId])) as StorySubmitRow[];
}

/** The results (the `results` view, whose columns PostgreSQL cannot vouch for: each is checked). */
async function resultsOf(em: EntityManager, searchId: string | null): Promise<StoryResultRow[]> {
  const rows = (await run(em, RESULTS, [searchId])) as Array<WithDocuments<'storyResults', Pick<StoryResultRow, 'entry'>>>;
  return rows.map((r) => ({
    ...r,
    id: filled(r.id, 'id'),
    offer_id: filled(r.offer_id, 'offer_id'),
    created_at: filled(r.created_at, 'created_at'),
  }));
}

async function offerChecksOf(em: EntityManager, searchId: string | null): Promise<StoryOfferCheckRow[]> {
  const rows = (await run(em, OFFER_CHECKS, [searchId])) as Array<WithDocuments<'storyOfferChecks', Pick<StoryOfferCheckRow, 'decision'>>>;
  return rows.map((r) => ({ ...r, offer_id: filled(r.offer_id, 'offer_id') }));
}

/**
 * The submits' sales, each cap slot it took with the slot's count now; then
 * the caps of the sales' offers now, and each slot's limit is that of the cap
 * whose scope (libs/domain capScope) and period are the slot's.
 */
async function salesOf(em: EntityManager, leadIds: string[]): Promise<StorySaleRow[]> {
  const sales = (await run(em, SALES, [leadIds])) as Array<
    WithDocuments<'storySales', { slots: Array<Omit<StoryCapSlot, 'limit'>> | null }>
  >;
  const caps = await run(em, CAPS, [[...new Set(sales.map((s) => s.offer_id))]]);
  const limitOf = (slot: { scope: string; period: string }): number | null =>
    caps.find((c) => capScope(c.offer_id, c.campaign_id) === slot.scope && c.period === slot.period)?.limit ?? null;
  return sales.map((s) => ({
    ...s,
    slots: (s.slots ?? []).map((x) => ({
      scope: x.scope,
      period: x.period,
      period_start: x.period_start,
      used_now: x.used_now,
      limit: limitOf(x),
    })),
  }));
}
