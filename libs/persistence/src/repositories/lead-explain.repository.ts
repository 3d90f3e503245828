import type { CampaignOffer, CapSlot, DedupeKey, Lead, OptOutKey } from '@lr/domain';
import { DataSource, EntityManager } from 'typeorm';
import { searchDays } from '../partitions/partition-days';
import { campaignOffersOf } from '../queries/catalog-offers';
import { KEYS_FROM_PARAMS, keyParams, LAST_SALES_TO_PERSON } from '../queries/dedupe-keys';
import { inLeadGroup, partnerCallsOf } from '../queries/lead-group';
import type { RowTypes } from '../queries/row-types.generated';
import { CAP_USAGE, capUsageOf, SaleFactsDocuments, slotParams } from '../queries/sale-facts';
import { filled, run, statement, type WithDocuments } from '../queries/sql';
import { OFFER_DECISIONS } from '../queries/shown-results';

/**
 * The read model behind `ops lead explain` (docs/operator-cli.md): what a
 * lead group's search and submits decided, as stored at the time
 * (`searches.offer_decisions`, `search_partner_calls`, the leads' codes), and
 * the facts the rules decide on as they are now (the campaign's offers, the
 * group's sales, the person's last sales, cap usage), read in one snapshot.
 * It only reads; the rules are libs/domain's, the telling is the CLI's.
 */

/**
 * The search of the group with what it decided and showed: every offer's
 * decision (`offer_decisions`), the shown ones joined back from the results
 * (OFFER_DECISIONS); the duplicate keys stored with the search (null: a test
 * search, or stored before they were kept).
 */
export type ExplainSearchRow = WithDocuments<
  'explainSearch',
  {
    lead: Lead;
    person_keys: DedupeKey[] | null;
    offer_decisions: Record<string, { shown?: boolean; reason?: string; detail?: string; partner?: string }>;
  }
>;

/** A result the search showed, in the order every poll showed them. */
export type ExplainResultRow = WithDocuments<'explainResults', { id: string; rank: number; offer_id: string; created_at: Date }>;

/** A partner network asked during the search. */
export type ExplainPartnerCallRow = RowTypes['storyPartnerCalls'];

/**
 * A submit or direct post of the group, with its decision as stored, the
 * picked result's expiry (result submits) and its buyer's answer: the last
 * delivery attempt (its detail may quote the person: mask it).
 */
export type ExplainSubmitRow = WithDocuments<
  'explainSubmits',
  {
    lead: Lead;
    attempt: {
      outcome: string | null;
      http_status: number | null;
      latency_ms: number | null;
      detail: string | null;
      started_at: Date;
      finished_at: Date | null;
    } | null;
  }
>;

/** A sale of the group (a LiveSale), with the times that say when it was live. */
export type ExplainSaleRow = RowTypes['explainSales'];

export interface LeadExplainRows {
  is: 'search' | 'submit';
  groupId: string;
  search: ExplainSearchRow | null;
  results: ExplainResultRow[];
  partnerCalls: ExplainPartnerCallRow[];
  submits: ExplainSubmitRow[];
  sales: ExplainSaleRow[];
  /** Each campaign's offers now (the search's, and every submit's), by campaign id. */
  offers: Map<string, CampaignOffer[]>;
  /** Names of offers the decisions or submits name, whether or not they are still on a campaign. */
  offerNames: Map<string, string>;
}

/** What explain asks of the ledger and the dedupe index now, after it has read the group. */
export interface ExplainFactsQuery {
  slots: readonly CapSlot[];
  /** For each person (the search's, each submit's lead): their last sales of `offerIds` strictly before each of `before`. */
  persons: ReadonlyArray<{ keys: readonly DedupeKey[]; offerIds: string[]; before: Date[]; optOutKeys: readonly OptOutKey[] }>;
}

export interface ExplainFacts {
  capUsage: Map<string, number>;
  /** Per person of the query (same order): by `before` time (ISO), then offer id. */
  lastSalesBefore: Array<Map<string, Map<string, Date>>>;
  /** Per person: since when their email or phone is suppressed (as the suppressions are now), or null. */
  suppressedSince: Array<Date | null>;
}

export class LeadExplainRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * Reads a group and the facts its decisions depend on in one snapshot
   * (REPEATABLE READ, read only): `facts` is asked, within the same
   * transaction, for the cap slots and person keys the rules need once the
   * group and the catalog are known. Null when the id is no search and no submit.
   */
  async read<T>(
    id: string,
    then: (rows: LeadExplainRows, facts: (q: ExplainFactsQuery) => Promise<ExplainFacts>) => Promise<T>,
  ): Promise<T | null> {
    return inLeadGroup(this.ds, id, async (em, found) => {
      const groupId = found.groupId;
      const search = await searchOf(em, groupId);
      const submits = await submitsOf(em, groupId);
      const campaigns = [...new Set([...(search ? [search.campaign_id] : []), ...submits.map((s) => s.campaign_id)])];
      const offers = new Map<string, CampaignOffer[]>();
      for (const c of campaigns) offers.set(c, await campaignOffersOf(em, c));
      const named = [...Object.keys(search?.offer_decisions ?? {}), ...submits.map((s) => s.offer_id)];
      const rows: LeadExplainRows = {
        is: found.is,
        groupId,
        search,
        results: search ? await resultsOf(em, search.id) : [],
        partnerCalls: search ? await partnerCallsOf(em, search.id) : [],
        submits,
        sales: await run(em, SALES, [groupId]),
        offers,
        offerNames: new Map((await run(em, OFFER_NAMES, [named])).map((o) => [o.id, o.name])),
      };
      return then(rows, (q) => factsOf(em, q));
    });
  }
}

const CAP_USAGE_NOW = statement('explainCapUsage', `SELECT json_agg(x) AS usage FROM (${CAP_USAGE('$1', '$2', '$3')}) x`);

/** Since when the person's contact keys are suppressed (null: not suppressed). */
const SUPPRESSED_SINCE = statement(
  'explainSuppressedSince',
  `SELECT min(sp.suppressed_at) AS at FROM suppressions sp JOIN unnest($1::text[], $2::char(64)[]) AS k(key_type, key_hash)
      ON sp.key_type = k.key_type AND sp.key_hash = k.key_hash`,
);

/** When the person was last sold each offer of $3 strictly before each time of $4. */
const LAST_SALES_BEFORE = statement(
  'explainLastSalesBefore',
  `SELECT t.before, x.offer_id, x.last_sold_at
     FROM unnest($4::timestamptz[]) AS t(before)
     CROSS JOIN LATERAL (${LAST_SALES_TO_PERSON(KEYS_FROM_PARAMS('$1', '$2'), 'd.offer_id = ANY($3::uuid[]) AND d.accepted_at < t.before')}) x`,
);

const SEARCH = statement(
  'explainSearch',
  `SELECT s.id, s.campaign_id, c.name AS campaign_name, s.affiliate_id, s.is_test, s.lead, s.created_at, s.closes_at, s.person_keys,
          ${OFFER_DECISIONS('s')} AS offer_decisions
     FROM searches s JOIN campaigns c ON c.id = s.campaign_id
    WHERE s.id = $1 AND ${searchDays('s', '$1')}`,
);

const RESULTS = statement(
  'explainResults',
  `SELECT r.id, r.rank, r.offer_id, o.school_id, r.payout, r.created_at
     FROM results r LEFT JOIN offers o ON o.id = r.offer_id
    WHERE r.search_id = $1 AND ${searchDays('r', '$1')}
    ORDER BY r.rank`,
);

const SUBMITS = statement(
  'explainSubmits',
  `SELECT l.id, l.kind, l.campaign_id, l.offer_id, o.name AS offer_name, l.result_id, l.program_id, l.lead, l.is_test, l.status, l.code, l.reason,
          l.field, l.decided_by, l.decided_at, l.created_at,
          (SELECT r.expires_at FROM results r WHERE r.id = l.result_id AND l.search_id IS NOT NULL AND r.search_id = l.search_id
              AND ${searchDays('r', 'l.search_id')}) AS result_expires_at,
          (SELECT row_to_json(a) FROM (SELECT outcome, http_status, latency_ms, detail, started_at, finished_at FROM delivery_attempts
              WHERE lead_id = l.id ORDER BY attempt DESC LIMIT 1) a) AS attempt
     FROM leads l JOIN offers o ON o.id = l.offer_id
    WHERE l.lead_group_id = $1
    ORDER BY l.created_at, l.id`,
);

const SALES = statement(
  'explainSales',
  `SELECT lead_id, offer_id AS "offerId", school_id AS "schoolId", offer_type AS "offerType", status, created_at, updated_at
     FROM sales WHERE lead_group_id = $1 ORDER BY created_at`,
);

const OFFER_NAMES = statement('explainOfferNames', `SELECT id, name FROM offers WHERE id::text = ANY($1::text[])`);

async function factsOf(em: EntityManager, q: ExplainFactsQuery): Promise<ExplainFacts> {
  const [usage] = (await run(em, CAP_USAGE_NOW, slotParams(q.slots))) as Array<
    WithDocuments<'explainCapUsage', { usage: SaleFactsDocuments['cap_usage'] }>
  >;
  const lastSalesBefore: ExplainFacts['lastSalesBefore'] = [];
  const suppressedSince: ExplainFacts['suppressedSince'] = [];
  for (const person of q.persons) {
    const [since] = await run(em, SUPPRESSED_SINCE, keyParams(person.optOutKeys));
    suppressedSince.push(since?.at ? new Date(since.at) : null);
    const byTime = new Map<string, Map<string, Date>>();
    lastSalesBefore.push(byTime);
    if (person.keys.length === 0 || person.before.length === 0) continue;
    const rows = await run(em, LAST_SALES_BEFORE, [...keyParams(person.keys), person.offerIds, person.before]);
    for (const r of rows) {
      if (r.before === null || r.offer_id === null || r.last_sold_at === null) continue;
      const key = new Date(r.before).toISOString();
      const byOffer = byTime.get(key) ?? new Map<string, Date>();
      byOffer.set(r.offer_id, new Date(r.last_sold_at));
      byTime.set(key, byOffer);
    }
  }
  return { capUsage: capUsageOf(usage?.usage ?? null), lastSalesBefore, suppressedSince };
}

async function searchOf(em: EntityManager, searchId: string): Promise<ExplainSearchRow | null> {
  const rows = (await run(em, SEARCH, [searchId])) as ExplainSearchRow[];
  return rows[0] ?? null;
}

/** The results (the `results` view, whose columns PostgreSQL cannot vouch for: each is checked). */
async function resultsOf(em: EntityManager, searchId: string): Promise<ExplainResultRow[]> {
  return (await run(em, RESULTS, [searchId])).map((r) => ({
    id: filled(r.id, 'id'),
    rank: filled(r.rank, 'rank'),
    offer_id: filled(r.offer_id, 'offer_id'),
    school_id: r.school_id,
    payout: r.payout,
    created_at: filled(r.created_at, 'created_at'),
  }));
}

async function submitsOf(em: EntityManager, groupId: string): Promise<ExplainSubmitRow[]> {
  return (await run(em, SUBMITS, [groupId])) as ExplainSubmitRow[];
}
