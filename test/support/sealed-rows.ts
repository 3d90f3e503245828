import { splitContact, type IpSource, type SealedContact, type StoredContact } from '../../libs/domain/src';
import type { ContactSealer } from '../../libs/persistence/src';

/**
 * Stored searches and leads turned into the sealed format the services write
 * (docs/security.md, Encryption at rest): the contact part split off
 * (libs/domain splitContact), sealed for the record under a data key of its
 * own, the readable part left in the row. Test statements, under test/.
 */
interface Queryable {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

type Table = 'searches' | 'leads';

/**
 * Seals the contact data of one stored search or lead in place (one stored
 * sealed already stays as it is); answers the sealed document and the
 * contact columns as they were sent.
 */
export async function sealStored(
  db: Queryable,
  sealer: ContactSealer,
  table: Table,
  id: string,
  today: Date = new Date(),
): Promise<{ sealed: SealedContact; clear: StoredContact }> {
  const { row, stored } = await storedRow(db, table, id);
  // Stored sealed already (checks seals every lead it stores): as it is.
  if (row.contact) return { sealed: row.contact, clear: await sealer.openRecord(stored, row.contact) };
  const clear = stored;
  const { readable, contact } = splitContact(clear, today);
  const sealed = await sealer.seal(id, contact);
  await db.query(`UPDATE ${table} SET lead = $2::jsonb, tracking = $3::jsonb, consumer_ip = $4, contact = $5::jsonb WHERE id = $1`, [
    id,
    JSON.stringify(readable.lead),
    JSON.stringify(readable.tracking),
    readable.consumerIp,
    JSON.stringify(sealed),
  ]);
  return { sealed, clear };
}

/** Turns one stored sealed record back into the form of a record stored before sealing (its contact columns in clear, no sealed part). */
export async function unsealStored(db: Queryable, sealer: ContactSealer, table: Table, id: string): Promise<StoredContact> {
  const { row, stored } = await storedRow(db, table, id);
  const clear = await sealer.openRecord(stored, row.contact);
  await db.query(`UPDATE ${table} SET lead = $2::jsonb, tracking = $3::jsonb, consumer_ip = $4, contact = NULL WHERE id = $1`, [
    id,
    JSON.stringify(clear.lead),
    JSON.stringify(clear.tracking),
    clear.consumerIp,
  ]);
  return clear;
}

async function storedRow(
  db: Queryable,
  table: Table,
  id: string,
): Promise<{ row: { contact: SealedContact | null }; stored: StoredContact }> {
  const rows = (await db.query(`SELECT lead, tracking, consumer_ip, ip_source, contact FROM ${table} WHERE id = $1`, [id])) as Array<{
    lead: StoredContact['lead'];
    tracking: Record<string, string> | null;
    consumer_ip: string;
    ip_source: IpSource;
    contact: SealedContact | null;
  }>;
  if (rows.length !== 1) throw new Error(`no ${table} row ${id}`);
  const r = rows[0];
  return { row: r, stored: { lead: r.lead, tracking: r.tracking ?? {}, consumerIp: r.consumer_ip, ipSource: r.ip_source } };
}

/** The sealed contact documents of these records as stored now (null where a record holds none). */
export async function sealedOf(db: Queryable, table: Table, ids: readonly string[]): Promise<Map<string, SealedContact | null>> {
  const rows = (await db.query(`SELECT id, contact FROM ${table} WHERE id = ANY($1::uuid[])`, [ids])) as Array<{
    id: string;
    contact: SealedContact | null;
  }>;
  return new Map(rows.map((r) => [r.id, r.contact]));
}
