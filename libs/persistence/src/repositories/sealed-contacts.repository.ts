import type { SealedContact } from '@lr/domain';
import { DataSource } from 'typeorm';
import { searchDays } from '../partitions/partition-days';
import { filled, run, statement } from '../queries/sql';

/**
 * The sealed contact documents of searches and leads (`searches.contact`,
 * `leads.contact`; docs/security.md, Encryption at rest) as the operator's
 * commands read them: to reveal a lead's contact data (and the audit of who
 * did, `contact_reveals`), to find a person's sealed records and the data
 * keys a deletion destroys, and the data keys of a day of searches the
 * retention drops. It reads ids and sealed documents only; opening them is
 * the ContactSealer's.
 */

const FIRST_ID = '00000000-0000-0000-0000-000000000000';

/** A search's sealed contact ($1: its id), null when it holds none (stored before sealing, suppressed or erased). */
const SEARCH_CONTACT = statement('sealedSearchContact', `SELECT s.contact FROM searches s WHERE s.id = $1 AND ${searchDays('s', '$1')}`);

/** The sealed contacts of these searches ($2) of one partition ($1: its day). */
const SEARCH_CONTACTS = statement(
  'sealedSearchContacts',
  `SELECT s.id, s.contact FROM searches s WHERE s.part_day = $1::date AND s.id = ANY($2::uuid[]) AND s.contact IS NOT NULL`,
);

/** The sealed contacts of these leads ($1). */
const LEAD_CONTACTS = statement(
  'sealedLeadContacts',
  `SELECT l.id, l.contact FROM leads l WHERE l.id = ANY($1::uuid[]) AND l.contact IS NOT NULL`,
);

/**
 * One partition's ($1: its day) sealed searches without person keys (test
 * searches store none), after id $2: only opening their contact tells whose
 * they are.
 */
const KEYLESS_SEALED_SEARCHES = statement(
  'keylessSealedSearches',
  `SELECT s.id, s.contact FROM searches s
    WHERE s.part_day = $1::date AND s.id > $2::uuid AND s.contact IS NOT NULL AND COALESCE(jsonb_array_length(s.person_keys), 0) = 0
    ORDER BY s.id
    LIMIT $3`,
);

/** Sealed leads the consent ledger does not hold (no hashes to find them by), after id $1. */
const UNLEDGERED_SEALED_LEADS = statement(
  'unledgeredSealedLeads',
  `SELECT l.id, l.contact FROM leads l
    WHERE l.id > $1::uuid AND l.contact IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM consent_ledger g WHERE g.lead_id = l.id)
    ORDER BY l.id
    LIMIT $2`,
);

/** Leads whose live dedupe keys hold one of the person's email ($1) or phone ($2) keys. */
const LEADS_BY_DEDUPE_KEYS = statement(
  'leadsByDedupeKeys',
  `SELECT DISTINCT d.lead_id FROM dedupe_keys d
    WHERE (d.key_type = 'email' AND d.key_hash = ANY($1::char(64)[])) OR (d.key_type = 'phone' AND d.key_hash = ANY($2::char(64)[]))`,
);

/** The data keys of the sealed searches of the partitions [$1, $2) (a day, or the legacy range), after id $3. */
const SEARCH_DATA_KEYS = statement(
  'searchDataKeysOfDays',
  `SELECT s.id, s.contact ->> 'key' AS key FROM searches s
    WHERE s.part_day >= $1::date AND s.part_day < $2::date AND s.id > $3::uuid AND s.contact IS NOT NULL
    ORDER BY s.id
    LIMIT $4`,
);

const INSERT_REVEAL = statement(
  'insertContactReveal',
  `INSERT INTO contact_reveals (lead_id, operator, reason) VALUES ($1::uuid, $2, $3) RETURNING id, revealed_at`,
);

const REVEALS = statement(
  'contactReveals',
  `SELECT id, lead_id, operator, reason, revealed_at FROM contact_reveals WHERE lead_id = $1::uuid ORDER BY revealed_at, id`,
);

/** A record's sealed contact document. */
export interface SealedRecord {
  id: string;
  contact: SealedContact;
}

/** One reveal of a lead's contact data by an operator. */
export interface ContactReveal {
  id: string;
  leadId: string;
  operator: string;
  reason: string | null;
  revealedAt: Date;
}

export class SealedContacts {
  constructor(private readonly ds: DataSource) {}

  /** The sealed contact of a search (by its id alone: its day or the kept partition); null when it holds none or does not exist. */
  async ofSearch(searchId: string): Promise<SealedContact | null> {
    const [r] = await run(this.ds, SEARCH_CONTACT, [searchId]);
    return (r?.contact as SealedContact | null | undefined) ?? null;
  }

  /** The sealed contacts of these searches of partition `day` (`YYYY-MM-DD`); a search that holds none is absent. */
  async ofSearches(day: string, ids: readonly string[]): Promise<SealedRecord[]> {
    if (ids.length === 0) return [];
    return (await run(this.ds, SEARCH_CONTACTS, [day, ids])).map(sealedRecord);
  }

  /** The sealed contacts of these leads; a lead that holds none is absent. */
  async ofLeads(ids: readonly string[]): Promise<SealedRecord[]> {
    if (ids.length === 0) return [];
    return (await run(this.ds, LEAD_CONTACTS, [ids])).map(sealedRecord);
  }

  /** One page of a partition's sealed searches that hold no person keys, after `afterId` (null: from the first). */
  async keylessSearches(day: string, afterId: string | null, limit: number): Promise<{ rows: SealedRecord[]; last: string | null }> {
    const rows = (await run(this.ds, KEYLESS_SEALED_SEARCHES, [day, afterId ?? FIRST_ID, limit])).map(sealedRecord);
    return { rows, last: pageEnd(rows, limit) };
  }

  /** One page of the sealed leads the consent ledger does not hold, after `afterId` (null: from the first). */
  async unledgeredLeads(afterId: string | null, limit: number): Promise<{ rows: SealedRecord[]; last: string | null }> {
    const rows = (await run(this.ds, UNLEDGERED_SEALED_LEADS, [afterId ?? FIRST_ID, limit])).map(sealedRecord);
    return { rows, last: pageEnd(rows, limit) };
  }

  /** Leads whose dedupe keys (held while a sale lives) hold one of these email or phone keys. */
  async leadsByDedupeKeys(emailKeys: readonly string[], phoneKeys: readonly string[]): Promise<string[]> {
    if (emailKeys.length + phoneKeys.length === 0) return [];
    return (await run(this.ds, LEADS_BY_DEDUPE_KEYS, [emailKeys, phoneKeys])).map((r) => r.lead_id);
  }

  /** One page of the data key ids of the sealed searches of the partitions [from, to), after search id `afterId`. */
  async searchDataKeys(from: string, to: string, afterId: string | null, limit: number): Promise<{ keys: string[]; last: string | null }> {
    const rows = await run(this.ds, SEARCH_DATA_KEYS, [from, to, afterId ?? FIRST_ID, limit]);
    return { keys: rows.map((r) => filled(r.key, 'key')), last: pageEnd(rows, limit) };
  }

  /** Records that `operator` revealed the contact data of lead (or search) `leadId`, and why. */
  async recordReveal(leadId: string, operator: string, reason: string | null): Promise<ContactReveal> {
    const [r] = await run(this.ds, INSERT_REVEAL, [leadId, operator, reason]);
    return { id: String(r.id), leadId, operator, reason, revealedAt: new Date(r.revealed_at) };
  }

  /** Every reveal of this lead's (or search's) contact data, oldest first. */
  async reveals(leadId: string): Promise<ContactReveal[]> {
    return (await run(this.ds, REVEALS, [leadId])).map((r) => ({
      id: String(r.id),
      leadId: r.lead_id,
      operator: r.operator,
      reason: r.reason,
      revealedAt: new Date(r.revealed_at),
    }));
  }
}

function sealedRecord(r: { id: string; contact: unknown }): SealedRecord {
  return { id: r.id, contact: r.contact as SealedContact };
}

function pageEnd<T extends { id: string }>(rows: readonly T[], limit: number): string | null {
  return rows.length < limit ? null : rows[rows.length - 1].id;
}
