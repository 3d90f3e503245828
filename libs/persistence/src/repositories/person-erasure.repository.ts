import type { OptOutKey, StoredContact } from '@lr/domain';
import type { PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { filled, inTransaction, poolOf, run, statement, type WithDocuments } from '../queries/sql';

/**
 * A person's records, found and erased for a deletion request
 * (docs/deletion.md; the rule of what is contact data: libs/domain
 * erasure.ts). Finding: live searches by their stored person keys (the
 * hashes), every other search (test searches store no keys, searches stored
 * before the keys were kept) by its email and phone hashed by the caller,
 * partition by partition; leads through the consent ledger's hashes and the
 * person's searches, and the leads the ledger does not hold (test leads, leads
 * without a consent decision, evidence stored before the ledger) hashed by the
 * caller. Erasing: one transaction per search or lead, its row locked, read,
 * handed to the caller's rule and written back with what hangs off it, so an
 * interrupted run leaves every record either as it was or erased.
 */

/** Rows per statement when scanning searches and leads that the hashes alone cannot find. */
const SCAN_PAGE = 5000;
const FIRST_ID = '00000000-0000-0000-0000-000000000000';

/** A test search (or one stored before person keys were kept) holds no keys: its lead is hashed by the caller. */
const KEYLESS = `COALESCE(jsonb_array_length(s.person_keys), 0) = 0`;

/**
 * One partition's searches ($1: its day) that may be the person's, after id
 * $3: those whose stored keys hold one of the person's ($2, each as a
 * one-element `[{type, hash}]`), and the keyless ones that have an email or
 * a phone, with them.
 */
const SEARCH_CANDIDATES = statement(
  'searchCandidates',
  `
  SELECT s.id, COALESCE(s.person_keys @> ANY($2::jsonb[]), false) AS by_keys,
         CASE WHEN ${KEYLESS} THEN s.lead #>> '{personal,email}' END AS email,
         CASE WHEN ${KEYLESS} THEN s.lead #>> '{personal,phone}' END AS phone
    FROM searches s
   WHERE s.part_day = $1::date AND s.id > $3::uuid
     AND (s.person_keys @> ANY($2::jsonb[]) OR (${KEYLESS} AND s.lead -> 'personal' ?| ARRAY['email', 'phone']))
   ORDER BY s.id
   LIMIT $4`,
);

/** Leads whose consent event holds one of the person keys ($1 emails, $2 phones), and the leads of searches $3. */
const LEAD_CANDIDATES = statement(
  'leadCandidates',
  `
  SELECT g.lead_id AS id FROM consent_ledger g
   WHERE g.email_key = ANY($1::char(64)[]) OR g.phone_key = ANY($2::char(64)[])
  UNION
  SELECT l.id FROM leads l WHERE l.search_id = ANY($3::uuid[])`,
);

/** Leads the consent ledger does not hold (no hashes to find them by), with an email or a phone, after id $1. */
const UNLEDGERED_LEADS = statement(
  'unledgeredLeads',
  `
  SELECT l.id, l.lead #>> '{personal,email}' AS email, l.lead #>> '{personal,phone}' AS phone
    FROM leads l
   WHERE l.id > $1::uuid AND l.lead -> 'personal' ?| ARRAY['email', 'phone']
     AND NOT EXISTS (SELECT 1 FROM consent_ledger g WHERE g.lead_id = l.id)
   ORDER BY l.id
   LIMIT $2`,
);

/** A search's contact columns, named as SearchContact's keys. */
const SEARCH_ROW = statement(
  'searchRow',
  `
  SELECT s.id, s.is_test AS "isTest", s.lead, s.tracking, s.consumer_ip AS "consumerIp", s.ip_source AS "ipSource",
         s.offer_decisions AS "offerDecisions", s.result_partner AS "resultPartner", s.result_expires AS "resultExpires",
         COALESCE((SELECT json_agg(json_build_object('partnerId', c.partner_id, 'detail', c.detail) ORDER BY c.partner_id)
                     FROM search_partner_calls c WHERE c.search_id = s.id AND c.part_day = s.part_day AND c.detail IS NOT NULL), '[]') AS "partnerCalls"
    FROM searches s
   WHERE s.id = $1 AND s.part_day = $2::date
     FOR UPDATE OF s`,
);

const WRITE_SEARCH = statement(
  'writeSearch',
  `
  WITH search AS (
    UPDATE searches SET lead = $3::jsonb, tracking = $4::jsonb, consumer_ip = $5, offer_decisions = $6::jsonb, result_partner = $7::jsonb,
                        result_expires = $8::timestamptz[]
     WHERE id = $1 AND part_day = $2::date
    RETURNING 1
  ), calls AS (
    UPDATE search_partner_calls c SET detail = x.detail
      FROM unnest($9::uuid[], $10::text[]) AS x(partner_id, detail)
     WHERE c.search_id = $1 AND c.part_day = $2::date AND c.partner_id = x.partner_id
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM search)::int AS searches, (SELECT count(*) FROM calls)::int AS calls`,
);

/** A lead's contact columns and what hangs off it, named as LeadContact's keys. */
const LEAD_ROW = statement(
  'leadRow',
  `
  SELECT l.id, l.is_test AS "isTest", l.lead, l.tracking, l.consumer_ip AS "consumerIp", l.ip_source AS "ipSource", l.answers,
         (SELECT json_build_object('ip', c.ip, 'buttonLabel', c.button_label) FROM consent_evidence c WHERE c.lead_id = l.id) AS consent,
         COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'detail', a.detail) ORDER BY a.attempt)
                     FROM delivery_attempts a WHERE a.lead_id = l.id AND a.detail IS NOT NULL), '[]') AS attempts,
         (SELECT n.receipt FROM revocation_notices n WHERE n.lead_id = l.id) AS receipt,
         (SELECT r.note FROM lead_returns r WHERE r.lead_id = l.id) AS "returnNote"
    FROM leads l
   WHERE l.id = $1
     FOR UPDATE OF l`,
);

const WRITE_LEAD = statement(
  'writeLead',
  `
  WITH lead AS (
    UPDATE leads SET lead = $2::jsonb, tracking = $3::jsonb, consumer_ip = $4, answers = $5::jsonb WHERE id = $1 RETURNING 1
  ), consent AS (
    UPDATE consent_evidence SET ip = $7, button_label = $8 WHERE lead_id = $1 AND $6::boolean RETURNING 1
  ), attempts AS (
    UPDATE delivery_attempts a SET detail = x.detail
      FROM unnest($9::int[], $10::text[]) AS x(attempt, detail)
     WHERE a.lead_id = $1 AND a.attempt = x.attempt
    RETURNING 1
  ), receipt AS (
    UPDATE revocation_notices SET receipt = $12::jsonb WHERE lead_id = $1 AND $11::boolean RETURNING 1
  ), returned AS (
    UPDATE lead_returns SET note = $14 WHERE lead_id = $1 AND $13::boolean RETURNING 1
  )
  SELECT (SELECT count(*) FROM consent)::int AS consent, (SELECT count(*) FROM attempts)::int AS attempts, (SELECT count(*) FROM receipt)::int AS receipts,
         (SELECT count(*) FROM returned)::int AS returns`,
);

/** An earlier deletion request that covers these person keys ($1 the email's, $2 the phone's; null: not asked). */
const DELETION_REQUEST = statement(
  'deletionRequest',
  `
  SELECT id, received_at FROM opt_outs
   WHERE source = 'deletion' AND ($1::char(64) IS NULL OR email_key = $1) AND ($2::char(64) IS NULL OR phone_key = $2)
   ORDER BY received_at
   LIMIT 1`,
);

/** A search that may be the person's. */
export interface SearchCandidate {
  id: string;
  /** Found by its stored person keys (a live search); else by the email and phone below, for the caller to hash. */
  byKeys: boolean;
  email: string | null;
  phone: string | null;
}

/** A lead that may be the person's, with its email and phone for the caller to hash. */
export interface LeadCandidate {
  id: string;
  email: string | null;
  phone: string | null;
}

/** A stored search's or lead's id, test flag and contact columns (lead, tracking, consumer IP). */
interface StoredRecord extends StoredContact {
  id: string;
  isTest: boolean;
}

/** The contact columns of a search as stored, with its partner calls' details. */
export interface SearchContact extends StoredRecord {
  offerDecisions: Record<string, unknown>;
  resultPartner: Record<string, unknown> | null;
  resultExpires: Date[];
  partnerCalls: Array<{ partnerId: string; detail: string }>;
}

/** A search as the erasure writes it: its partner calls only those whose detail changes. */
export type ErasedSearch = Omit<SearchContact, 'id' | 'isTest' | 'ipSource'>;

/** The contact columns of a lead as stored, with what hangs off it: its consent evidence, delivery attempts' details, revocation receipt, return note. */
export interface LeadContact extends StoredRecord {
  answers: Record<string, string>;
  consent: { ip: string; buttonLabel: string | null } | null;
  attempts: Array<{ attempt: number; detail: string }>;
  receipt: unknown | null;
  /** The school's note with its return (its own words, for operators). */
  returnNote: string | null;
}

/** A lead as the erasure writes it: `consent` null keeps the evidence as it is; attempts only those whose detail changes; `receipt` and `returnNote` undefined keep them. */
export type ErasedLead = Omit<LeadContact, 'id' | 'isTest' | 'ipSource' | 'receipt' | 'returnNote'> & {
  receipt?: unknown;
  returnNote?: string;
};

/** The caller's rule: the record without the person's contact data, or null when the record does not hold the person (nothing is written). */
export type EraseRule<T, E> = (record: T) => E | null;

export class PersonErasure {
  constructor(private readonly ds: DataSource) {}

  /** One page of a search partition's candidates (`day` as `YYYY-MM-DD`), after `afterId` (null: from the first). */
  async searchCandidates(
    day: string,
    keys: readonly OptOutKey[],
    afterId: string | null,
  ): Promise<{ rows: SearchCandidate[]; last: string | null }> {
    const rows = await run(this.ds, SEARCH_CANDIDATES, [
      day,
      keys.map((k) => JSON.stringify([{ type: k.type, hash: k.hash }])),
      afterId ?? FIRST_ID,
      SCAN_PAGE,
    ]);
    return { rows: rows.map((r) => ({ id: r.id, byKeys: r.by_keys === true, email: r.email, phone: r.phone })), last: pageEnd(rows) };
  }

  /** Leads found by the person's hashes in the consent ledger, and the leads of their searches. */
  async leadCandidates(keys: readonly OptOutKey[], searchIds: readonly string[]): Promise<string[]> {
    const of = (type: string) => keys.filter((k) => k.type === type).map((k) => k.hash);
    // Both branches of the UNION read a table's NOT NULL id; PostgreSQL describes a UNION's columns as computed.
    return (await run(this.ds, LEAD_CANDIDATES, [of('email'), of('phone'), searchIds])).map((r) => filled(r.id, 'id'));
  }

  /** One page of the leads the consent ledger does not hold, after `afterId` (null: from the first). */
  async unledgeredLeads(afterId: string | null): Promise<{ rows: LeadCandidate[]; last: string | null }> {
    const rows = await run(this.ds, UNLEDGERED_LEADS, [afterId ?? FIRST_ID, SCAN_PAGE]);
    return { rows, last: pageEnd(rows) };
  }

  /**
   * Erases one search (`day`: its partition's) in a transaction: the row
   * locked and read, `rule` applied, the row and its partner calls' details
   * written. Null when the search is gone or `rule` finds nothing of the
   * person in it. A dry run rolls back.
   */
  async eraseSearch(
    id: string,
    day: string,
    rule: EraseRule<SearchContact, ErasedSearch>,
    dryRun: boolean,
  ): Promise<{ record: SearchContact; erased: ErasedSearch } | null> {
    return this.erase(dryRun, async (client) => {
      const [record] = (await run(client, SEARCH_ROW, [id, day])) as Array<
        WithDocuments<'searchRow', Pick<SearchContact, 'lead' | 'tracking' | 'offerDecisions' | 'resultPartner' | 'partnerCalls'>>
      >;
      if (!record) return null;
      const erased = rule(record);
      if (!erased) return null;
      await run(client, WRITE_SEARCH, [
        id,
        day,
        JSON.stringify(erased.lead),
        JSON.stringify(erased.tracking),
        erased.consumerIp,
        JSON.stringify(erased.offerDecisions),
        erased.resultPartner === null ? null : JSON.stringify(erased.resultPartner),
        erased.resultExpires,
        erased.partnerCalls.map((c) => c.partnerId),
        erased.partnerCalls.map((c) => c.detail),
      ]);
      return { record, erased };
    });
  }

  /** Erases one lead and what hangs off it, as eraseSearch does a search. */
  async eraseLead(
    id: string,
    rule: EraseRule<LeadContact, ErasedLead>,
    dryRun: boolean,
  ): Promise<{ record: LeadContact; erased: ErasedLead } | null> {
    return this.erase(dryRun, async (client) => {
      const [record] = (await run(client, LEAD_ROW, [id])) as Array<
        WithDocuments<'leadRow', Pick<LeadContact, 'lead' | 'tracking' | 'answers' | 'consent' | 'attempts'>>
      >;
      if (!record) return null;
      const erased = rule(record);
      if (!erased) return null;
      await run(client, WRITE_LEAD, [
        id,
        JSON.stringify(erased.lead),
        JSON.stringify(erased.tracking),
        erased.consumerIp,
        JSON.stringify(erased.answers),
        erased.consent !== null,
        erased.consent?.ip ?? null,
        erased.consent?.buttonLabel ?? null,
        erased.attempts.map((a) => a.attempt),
        erased.attempts.map((a) => a.detail),
        erased.receipt !== undefined,
        erased.receipt === undefined ? null : JSON.stringify(erased.receipt),
        erased.returnNote !== undefined,
        erased.returnNote ?? null,
      ]);
      return { record, erased };
    });
  }

  /** The first deletion request recorded for these keys (each of them), if any. */
  async deletionRequest(keys: readonly OptOutKey[]): Promise<{ id: string; receivedAt: Date } | null> {
    const of = (type: string) => keys.find((k) => k.type === type)?.hash ?? null;
    const [r] = await run(this.ds, DELETION_REQUEST, [of('email'), of('phone')]);
    return r ? { id: r.id, receivedAt: new Date(r.received_at) } : null;
  }

  private async erase<T>(dryRun: boolean, work: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(poolOf(this.ds), async (tx) => {
      await tx.begin();
      const result = await work(tx.client);
      if (dryRun) {
        await tx.client.query('ROLLBACK');
        tx.open = false;
      }
      return result;
    });
  }
}

function pageEnd<T extends { id: string }>(rows: readonly T[]): string | null {
  return rows.length < SCAN_PAGE ? null : rows[rows.length - 1].id;
}
