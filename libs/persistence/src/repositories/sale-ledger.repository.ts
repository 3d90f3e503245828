import type { SearchMeta } from '@lr/contracts';
import {
  BuyerOutcome,
  CapAt,
  CapSlot,
  Cents,
  ConsentEvidence,
  ConsentLedgerEntry,
  DedupeKey,
  Decision,
  decimalText,
  Lead,
  LiveSale,
  OptOutKey,
  SaleFacts,
  SealedContact,
  SUBMIT,
} from '@lr/domain';
import { DataSource } from 'typeorm';
import { searchDays } from '../partitions/partition-days';
import type { Queryable } from '../queries/queryable';
import type { RowTypes } from '../queries/row-types.generated';
import { Connection, inTransaction, literal, poolOf, run, statement, type WithDocuments } from '../queries/sql';
import { CONSENT_APPEND, CONSENT_INSERT, consentParams, ledgerParams } from '../queries/consent-evidence';
import { KEYS_FROM_PARAMS, keyParams, LAST_SALES_TO_PERSON } from '../queries/dedupe-keys';
import { CAP_USAGE, factsOf, LIVE_SALES, SaleFactsDocuments, slotParams } from '../queries/sale-facts';
import { SEARCH_META_COLUMNS, SearchMetaColumns, searchMetaOf } from '../queries/search-meta';
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
import { SUPPRESSED } from '../queries/suppressions';
import { locksOn } from '../queries/advisory-locks';

/**
 * The sale and cap ledger (`sales`, `cap_usage`, and the dedupe keys a sale
 * writes): what each lead group has sold, what each cap has counted. The
 * rules that decide (libs/domain: sales/, caps/, duplicates/, qualify/) run in
 * the caller on the facts read here; the invariants that must hold under
 * concurrency are enforced here, each by one statement inside the
 * reservation's transaction:
 *   - the lead group and the person's keys on the offer are locked first
 *     (transaction advisory locks, in one sorted order), so the sale rules and
 *     the duplicate rule are applied with no other sale of that lead or that
 *     person in between;
 *   - a cap slot is taken by a conditional upsert (`used + 1 … WHERE used <
 *     limit`), never read-then-write: a cap is never exceeded;
 *   - `ux_sales_live_group_offer`: at most one live sale per lead group and offer.
 */

/**
 * The select list that reads SaleFacts: live sales of $1 (null: none), cap
 * usage of $2-$4, the person's ($5, $6) last sales of offers $7, and whether
 * the person's contact keys (two array parameters, `optOut`) are suppressed.
 */
const saleFactsSelect = (optOut: [string, string]) => `
  (SELECT json_agg(x) FROM (${LIVE_SALES('$1::uuid')}) x) AS live_sales,
  (SELECT json_agg(x) FROM (${CAP_USAGE('$2', '$3', '$4')}) x) AS cap_usage,
  (SELECT json_agg(x) FROM (${LAST_SALES_TO_PERSON(KEYS_FROM_PARAMS('$5', '$6'), 'd.offer_id = ANY($7::uuid[])')}) x) AS last_sales,
  ${SUPPRESSED(KEYS_FROM_PARAMS(...optOut))} AS suppressed`;

const SALE_FACTS = statement('saleFacts', `SELECT ${saleFactsSelect(['$8', '$9'])}`);

/** The sale facts under the reservation's locks, with the group's lead and this submit's own row. */
const LOCKED_FACTS = statement(
  'lockedFacts',
  `SELECT ${saleFactsSelect(['$10', '$11'])},
          (SELECT row_to_json(x) FROM (SELECT ${STORED_LEAD_COLUMNS} FROM leads l WHERE l.id = $8) x) AS own,
          COALESCE((SELECT s.lead FROM searches s WHERE s.id = $9 AND ${searchDays('s', '$9')}), (SELECT g.lead FROM leads g WHERE g.id = $1 AND $9::uuid IS NULL)) AS group_lead,
          CASE WHEN $9::uuid IS NULL THEN (SELECT g.contact FROM leads g WHERE g.id = $1)
               ELSE (SELECT s.contact FROM searches s WHERE s.id = $9 AND ${searchDays('s', '$9')}) END AS group_contact,
          COALESCE((SELECT s.submitted_at IS NOT NULL FROM searches s WHERE s.id = $9 AND ${searchDays('s', '$9')}), EXISTS (SELECT 1 FROM leads g WHERE g.id = $1 AND $9::uuid IS NULL)) AS submitted`,
);

/** Marks WRITE_SALE's failure when a cap filled meanwhile. */
const CAP_FILLED = 'lr-cap-filled';

/** The sale's one write (writeSale). */
const WRITE_SALE = statement(
  'writeSale',
  `WITH taken AS (
         INSERT INTO cap_usage AS u (scope, period, period_start, used)
         SELECT c.scope, c.period, c.period_start, 1
           FROM unnest($32::text[], $33::text[], $34::timestamptz[], $35::int[]) WITH ORDINALITY AS c(scope, period, period_start, lim, n)
          WHERE c.lim > 0
          ORDER BY c.n
         ON CONFLICT (scope, period, period_start) DO UPDATE SET used = u.used + 1, updated_at = now()
          WHERE u.used < (SELECT x.lim FROM unnest($32::text[], $33::text[], $34::timestamptz[], $35::int[]) AS x(scope, period, period_start, lim)
                           WHERE x.scope = u.scope AND x.period = u.period AND x.period_start = u.period_start)
         RETURNING scope, period, period_start
       ), sale AS (
         INSERT INTO sales (lead_id, search_id, lead_group_id, offer_id, school_id, campaign_id, affiliate_id, offer_type, payout, price, status, cap_slots)
         SELECT $1::uuid, $2::uuid, $17::uuid, $7::uuid, $36::uuid, $6::uuid, $5::uuid, $37, $44::numeric, $38::numeric, 'reserved',
                COALESCE((SELECT json_agg(json_build_object('scope', scope, 'period', period, 'period_start', period_start)) FROM taken), '[]')
          WHERE (SELECT count(*) FROM taken) = cardinality($32::text[])
         RETURNING lead_id
       ), lead AS (${LEAD_INSERT(1, 'EXISTS (SELECT 1 FROM sale)', '$50')}
       ), consent AS (${CONSENT_INSERT('$1::uuid', 25, 'EXISTS (SELECT 1 FROM sale)')}
       ), chained AS (${CONSENT_APPEND('consent', 45)}
       ), person AS (
         INSERT INTO dedupe_keys (lead_id, key_type, key_hash, offer_id, school_id, affiliate_id, accepted_at)
         SELECT $1::uuid, k.key_type, k.key_hash, $7::uuid, $36::uuid, $5::uuid, now()
           FROM unnest($39::text[], $40::char(64)[]) AS k(key_type, key_hash)
          WHERE EXISTS (SELECT 1 FROM sale)
         ON CONFLICT DO NOTHING
         RETURNING 1
       ), search AS (
         UPDATE searches s SET lead = $41::jsonb, person_keys = $42::jsonb, submitted_at = COALESCE(submitted_at, now()),
                               contact = COALESCE($49::jsonb, s.contact)
          WHERE s.id = $43::uuid AND ${searchDays('s', '$43::uuid')} AND EXISTS (SELECT 1 FROM sale)
            -- a search's later sales mostly change nothing: no new row version then
            AND (submitted_at IS NULL OR lead IS DISTINCT FROM $41::jsonb OR person_keys IS DISTINCT FROM $42::jsonb OR $49::jsonb IS NOT NULL)
         RETURNING 1
       )
       -- Not sold means a cap filled meanwhile: the statement fails (CAP_FILLED), so the transaction is rolled back and no
       -- slot it did take is kept. The failing cast reads a row count, so it is never folded at plan time.
       SELECT CASE WHEN EXISTS (SELECT 1 FROM sale) THEN true ELSE (SELECT ('${CAP_FILLED}:' || count(*))::boolean FROM taken) END AS sold`,
);

/** The sale's write failed because a cap filled between the facts and the write (WRITE_SALE). */
function isCapFilled(e: unknown): boolean {
  return (e as { code?: string }).code === '22P02' && String((e as Error).message).includes(CAP_FILLED);
}

/** Claims a lead's delivery attempt, or reads the one claimed before (claimAttempt). */
const CLAIM = statement(
  'claimAttempt',
  `WITH claimed AS (
         INSERT INTO delivery_attempts (lead_id, attempt, started_at) VALUES ($1, 1, now()) ON CONFLICT DO NOTHING RETURNING started_at
       )
       SELECT true AS claimed, started_at FROM claimed
       UNION ALL
       SELECT false, started_at FROM delivery_attempts WHERE lead_id = $1 AND attempt = 1 AND NOT EXISTS (SELECT 1 FROM claimed)`,
);

/** A twin's claim, committed while CLAIM waited (claimAttempt). */
const CLAIMED_BEFORE = statement(
  'claimedBefore',
  `SELECT false AS claimed, started_at FROM delivery_attempts WHERE lead_id = $1 AND attempt = 1`,
);

/**
 * Restarts an unfinished attempt whose start is at least $2 ms old (its worker
 * died during the call; resendAttempt). The condition is evaluated again on the
 * row a concurrent restart committed, so one restart wins.
 */
const RESEND = statement(
  'resendAttempt',
  `WITH resent AS (
         UPDATE delivery_attempts SET started_at = now()
          WHERE lead_id = $1 AND attempt = 1 AND finished_at IS NULL AND started_at <= now() - $2 * interval '1 millisecond'
         RETURNING started_at
       )
       SELECT true AS claimed, started_at FROM resent
       UNION ALL
       SELECT false, started_at FROM delivery_attempts WHERE lead_id = $1 AND attempt = 1 AND NOT EXISTS (SELECT 1 FROM resent)`,
);

/** Books a buyer's answer (settle). */
const SETTLE = statement(
  'settleLead',
  `WITH attempt AS (
         UPDATE delivery_attempts SET finished_at = now(), outcome = $2, http_status = $3, latency_ms = $4, detail = $5
          WHERE lead_id = $1 AND attempt = 1 AND finished_at IS NULL AND $12::boolean
         RETURNING 1
       ), decided AS (
         UPDATE leads SET status = $6, code = $7, reason = $8, field = $9, payout = $10::numeric, decided_at = now(), decided_by = $11
          WHERE id = $1 AND status = 'pending'
         RETURNING *
       ), sale AS (
         UPDATE sales SET status = CASE WHEN $13::boolean THEN 'accepted' ELSE 'released' END, updated_at = now()
          WHERE lead_id = $1 AND status = 'reserved' AND EXISTS (SELECT 1 FROM decided)
         RETURNING search_id, cap_slots
       ), slots AS (
         UPDATE cap_usage u SET used = u.used - 1, updated_at = now()
           FROM sale, jsonb_to_recordset(sale.cap_slots) AS x(scope text, period text, period_start timestamptz)
          WHERE NOT $13::boolean AND u.scope = x.scope AND u.period = x.period AND u.period_start = x.period_start AND u.used > 0
         RETURNING 1
       ), person AS (
         DELETE FROM dedupe_keys WHERE lead_id = $1 AND NOT $13::boolean AND EXISTS (SELECT 1 FROM sale)
         RETURNING 1
       ), search AS (
         UPDATE searches s SET accepted_count = s.accepted_count + 1,
                               true_exclusive_accepted = s.true_exclusive_accepted OR $14::boolean,
                               state_version = s.state_version + 1
           FROM sale
          WHERE $13::boolean AND s.id = sale.search_id AND ${searchDays('s', 'sale.search_id')}
         RETURNING ${SEARCH_META_COLUMNS}, s.result_order
       )
       SELECT COALESCE((SELECT row_to_json(x) FROM (SELECT ${STORED_LEAD_COLUMNS} FROM decided l) x),
                       (SELECT row_to_json(x) FROM (SELECT ${STORED_LEAD_COLUMNS} FROM leads l WHERE l.id = $1) x)) AS lead,
              (SELECT row_to_json(search) FROM search) AS search`,
);

export interface SaleFactsQuery {
  /** The lead group whose live sales count; null for a search not stored yet (nothing sold). */
  groupId: string | null;
  /** The cap slots of the offers judged, now. */
  slots: readonly CapSlot[];
  /** The person's keys (none when the person check does not run). */
  keys: readonly DedupeKey[];
  offerIds: readonly string[];
  /** The person's contact keys, checked against the suppressions in every mode (libs/domain leadOptOutKeys). */
  optOutKeys: readonly OptOutKey[];
}

/** What a reservation locks and reads: the lead, its group and offer, the person's keys (duplicates, and contact keys for suppression), the caps, its search. */
export interface ReservationQuery {
  leadId: string;
  groupId: string;
  offerId: string;
  keys: readonly DedupeKey[];
  optOutKeys: readonly OptOutKey[];
  caps: readonly CapAt[];
  searchId: string | null;
}

/** What a sale writes when the rules allow it. */
export interface SaleToReserve {
  lead: NewLead;
  consent: ConsentEvidence | null;
  /** The consent event's ledger entry (null: not chained, or no consent decision). */
  consentLedger: ConsentLedgerEntry | null;
  offerId: string;
  schoolId: string;
  offerType: LiveSale['offerType'];
  payout: Cents | null;
  price: Cents | null;
  /** The caps of the sale with their slots now, each taken atomically. */
  caps: readonly CapAt[];
  /** The person's keys, written to the dedupe index with the sale. */
  keys: readonly DedupeKey[];
  /**
   * A result submit fixes its search's lead (and its keys) from now on: its
   * readable part, and its sealed part when it changed (null: the search's is kept).
   */
  search: { id: string; lead: Lead; contact: SealedContact | null; keys: readonly DedupeKey[] } | null;
}

/** What the reservation read under its locks. */
export interface LockedFacts extends SaleFacts {
  /** The group's lead as stored now (its readable part beside `groupContact`), and whether it was already submitted (its data may no longer change). */
  groupLead: Lead | null;
  groupContact: SealedContact | null;
  submitted: boolean;
  /** This submit's own row: a twin of the message got here first. */
  own: StoredLead | null;
}

/** The caller's rules, applied to what was read under the locks. */
export type ReservationPlan =
  | { kind: 'sell'; sale: SaleToReserve }
  | { kind: 'refuse'; decision: Decision }
  | { kind: 'forbidden' }
  /** The lead to sell has other person keys than those locked (its data changed meanwhile): lock them too and decide again. */
  | { kind: 'lock-keys'; keys: readonly DedupeKey[] };

export type ReservationResult =
  { kind: 'reserved' } | { kind: 'refused'; decision: Decision } | { kind: 'forbidden' } | { kind: 'stored'; lead: StoredLead };

/** How a buyer's answer is booked. */
export interface Settlement {
  leadId: string;
  outcome: BuyerOutcome;
  decision: Decision;
  /** The attempt's record: null when no buyer was called (e.g. the offer left the campaign). */
  attempt: { httpStatus: number | null; latencyMs: number; detail: string | null } | null;
  /** Accepted: the payout booked on the sale. */
  payout: Cents | null;
  /** Accepted: the sale ends the lead's other sales (libs/domain endsOtherSales), as the search's counters record. */
  endsOtherSales: boolean;
}

export type AttemptClaim = { claimed: true } | { claimed: false; startedAt: Date };

class Rollback extends Error {
  constructor(readonly result: ReservationResult) {
    super(result.kind);
  }
}

export class SaleLedger {
  constructor(private readonly ds: DataSource) {}

  /** The facts the sale rules, the duplicate rule and the caps decide on, in one statement (search-time and test submits: no locks). */
  async saleFacts(q: SaleFactsQuery, db: Queryable | Connection = this.ds): Promise<SaleFacts> {
    const rows = (await run(db, SALE_FACTS, [
      q.groupId,
      ...slotParams(q.slots),
      ...keyParams(q.keys),
      q.offerIds,
      ...keyParams(q.optOutKeys),
    ])) as Array<WithDocuments<'saleFacts', SaleFactsDocuments>>;
    return factsOf(rows[0]);
  }

  /**
   * The atomic sale: one transaction takes everything a sale needs or nothing.
   * 1. Locks the lead group and the person's keys on the offer (advisory
   *    locks, sorted: no two reservations wait on each other in a cycle).
   * 2. Reads, now that nobody else can sell this lead or this person to the
   *    offer: the group's stored lead, its live sales, the person's last sales
   *    of the offer, the caps' usage, and this submit's own row.
   * 3. Asks `plan` (the caller's rules) what to do.
   * 4. Writes the sale in one statement: every cap slot (conditional upsert),
   *    the sale with the slots it took, the lead (pending) and its consent
   *    evidence (with its consent ledger append), the dedupe keys, the search's lead; a cap taken meanwhile
   *    rolls it all back as CAP_REACHED.
   */
  async reserve(q: ReservationQuery, plan: (facts: LockedFacts) => ReservationPlan | Promise<ReservationPlan>): Promise<ReservationResult> {
    try {
      return await inTransaction(poolOf(this.ds), async (tx) => {
        let keys = [...q.keys];
        // BEGIN, the locks and the facts read under them: one round trip.
        let facts = lockedFactsOf(
          await tx.begin(
            locksOn(`${literal(lockNames(q.groupId, q.offerId, keys))}::text[]`),
            await tx.execute(LOCKED_FACTS, lockedFactsParams(q, keys)),
          ),
        );
        for (;;) {
          if (facts.own) return { kind: 'stored', lead: facts.own } as const;
          const next = await plan(facts);
          if (next.kind === 'lock-keys') {
            const known = new Set(keys.map((k) => `${k.type}:${k.hash}`));
            const more = next.keys.filter((k) => !known.has(`${k.type}:${k.hash}`));
            if (more.length === 0) throw new Error('the reservation plan asked for keys it already holds');
            await run(tx.client, LOCK, [lockNames(null, q.offerId, more)]);
            keys = [...keys, ...more];
            facts = lockedFactsOf(await run(tx.client, LOCKED_FACTS, lockedFactsParams(q, keys)));
            continue;
          }
          if (next.kind === 'refuse') throw new Rollback({ kind: 'refused', decision: next.decision });
          if (next.kind === 'forbidden') throw new Rollback({ kind: 'forbidden' });
          // The sale's write carries the lead and its consent: bound, then COMMIT (never inlined: commitBound).
          try {
            await tx.commitBound(WRITE_SALE, writeSaleParams(next.sale));
          } catch (e) {
            if (isCapFilled(e)) throw new Rollback({ kind: 'refused', decision: SUBMIT.capReached });
            throw e;
          }
          return { kind: 'reserved' } as const;
        }
      });
    } catch (e) {
      if (e instanceof Rollback) return e.result;
      throw e;
    }
  }

  /**
   * Claims the lead's one delivery attempt, committed before the buyer is
   * called (at most once: a redelivered request finds it and never calls
   * again). Otherwise says when the earlier attempt started; a twin's claim
   * that committed while this statement waited on its row is read in a
   * statement of its own (it is not in this statement's snapshot).
   */
  async claimAttempt(leadId: string): Promise<AttemptClaim> {
    const rows = await run(this.ds, CLAIM, [leadId]);
    const r = rows[0] ?? (await run(this.ds, CLAIMED_BEFORE, [leadId]))[0];
    if (!r) throw new Error(`delivery attempt of lead ${leadId} was neither claimed nor found`);
    return attemptClaimOf(r);
  }

  /**
   * Claims the lead's unfinished attempt again, to call a buyer that honours
   * idempotency keys once more, when the attempt started at least `staleMs`
   * ago (its deadline passed and its worker is gone). Otherwise says when the
   * attempt (re)started: another redelivery may be calling the buyer now.
   */
  async resendAttempt(leadId: string, staleMs: number): Promise<AttemptClaim> {
    const [r] = await run(this.ds, RESEND, [leadId, staleMs]);
    if (!r) throw new Error(`delivery attempt of lead ${leadId} was not found`);
    return attemptClaimOf(r);
  }

  /**
   * Books a buyer's answer in one statement: the attempt's end, the lead's
   * decision (only a pending lead takes one: a second finalizer changes
   * nothing), and the sale accepted (the search's counters with it) or
   * released (its cap slots given back, its dedupe keys dropped). Returns the
   * lead as decided, and the search's new state when an acceptance changed it.
   */
  async settle(s: Settlement): Promise<{ lead: StoredLead; search: (Omit<SearchMeta, 'order'> & { order: string[] }) | null }> {
    const accepted = s.outcome === 'accepted';
    const rows = (await run(this.ds, SETTLE, [
      s.leadId,
      s.outcome,
      s.attempt?.httpStatus ?? null,
      s.attempt?.latencyMs ?? null,
      s.attempt?.detail ?? null,
      s.decision.status,
      s.decision.code,
      s.decision.reason,
      s.decision.field ?? null,
      accepted && s.payout !== null ? decimalText(s.payout) : accepted ? null : '0.00',
      s.decision.decidedBy ?? 'service',
      s.attempt !== null,
      accepted,
      s.endsOtherSales,
    ])) as Array<WithDocuments<'settleLead', { lead: StoredLeadColumns; search: (SearchMetaColumns & { result_order: string[] }) | null }>>;
    const r = rows[0];
    return { lead: storedLeadOf(r.lead), search: r.search ? { ...searchMetaOf(r.search), order: r.search.result_order } : null };
  }
}

/** Lock names of the lead group (unless null) and of the person's keys on the offer. */
function lockNames(groupId: string | null, offerId: string, keys: readonly DedupeKey[]): string[] {
  return [...(groupId ? [`sale-group:${groupId}`] : []), ...keys.map((k) => `dedupe:${offerId}:${k.type}:${k.hash}`)];
}

const LOCK = statement('saleLocks', locksOn('$1::text[]'));

/** LOCKED_FACTS' parameters: the group, the caps' slots, the person's keys, the offer, this submit, its search. */
function lockedFactsParams(q: ReservationQuery, keys: readonly DedupeKey[]): unknown[] {
  return [
    q.groupId,
    ...slotParams(q.caps.map((c) => c.slot)),
    ...keyParams(keys),
    [q.offerId],
    q.leadId,
    q.searchId,
    ...keyParams(q.optOutKeys),
  ];
}

function lockedFactsOf(rows: ReadonlyArray<RowTypes['lockedFacts']>): LockedFacts {
  const r = rows[0] as WithDocuments<
    'lockedFacts',
    SaleFactsDocuments & { own: StoredLeadColumns | null; group_lead: Lead | null; group_contact: SealedContact | null }
  >;
  return {
    ...factsOf(r),
    own: r.own ? storedLeadOf(r.own) : null,
    groupLead: r.group_lead,
    groupContact: r.group_contact,
    submitted: r.submitted === true,
  };
}

/** A claim's answer: claimed now, or when the attempt claimed before started. */
function attemptClaimOf(r: { claimed: boolean | null; started_at: Date | null }): AttemptClaim {
  if (r.claimed) return { claimed: true };
  if (r.started_at === null) throw new Error('a delivery attempt without its start');
  return { claimed: false, startedAt: new Date(r.started_at) };
}

/** WRITE_SALE's parameters. The lead is pending: its payout is booked when its buyer accepts (the sale holds it meanwhile). */
function writeSaleParams(s: SaleToReserve): unknown[] {
  const caps = s.caps;
  return [
    ...leadParams(s.lead, SUBMIT.pending, null), // $1-$24
    ...consentParams(s.consent), // $25-$31
    caps.map((c) => c.slot.scope),
    caps.map((c) => c.slot.period),
    caps.map((c) => c.slot.periodStart.toISOString()),
    caps.map((c) => c.limit),
    s.schoolId,
    s.offerType,
    s.price === null ? null : decimalText(s.price),
    ...keyParams(s.keys),
    s.search ? JSON.stringify(s.search.lead) : null,
    s.search ? JSON.stringify(s.search.keys) : null,
    s.search?.id ?? null,
    s.payout === null ? null : decimalText(s.payout), // $44
    ...ledgerParams(s.consentLedger), // $45-$48
    s.search?.contact ? JSON.stringify(s.search.contact) : null, // $49
    contactParam(s.lead), // $50
  ];
}
