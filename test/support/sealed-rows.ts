import { splitContact, type IpSource, type SealedContact, type StoredContact } from '../../libs/domain/src';
import type { ContactSealer } from '../../libs/persistence/src';
import { rowsOf } from './canaries';
import { keyStoreSealer } from './medium-world';
import { TEST_DATABASE_URL } from './test-env';

/**
 * Stored searches and leads turned into the sealed format the services write
 * (docs/security.md, Encryption at rest): the contact part split off
 * (libs/domain splitContact), sealed for the record under a data key of its
 * own, the readable part left in the row. Test statements, under test/.
 */
/** A TypeORM DataSource (answers rows) or a pg client (answers a result with rows). */
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

/**
 * A stored search or lead with its contact data opened, as an operator's
 * reveal sees it (docs/security.md, Encryption at rest): `lead`, `tracking`
 * and `consumer_ip` whole; `stored_lead` and `contact` as the row holds them.
 * Null when there is no such row. `databaseUrl`: the database the row is in
 * (its key store is beside it).
 */
export async function openedRow(db: Queryable, table: Table, id: string, databaseUrl = TEST_DATABASE_URL): Promise<Row | null> {
  const [row] = await rowsOf<Row>(db, `SELECT * FROM ${table} WHERE id = $1`, [id]);
  if (!row) return null;
  const whole = await keyStoreSealer(databaseUrl).openRecord(contactColumnsOf(row), row.contact);
  return { ...row, stored_lead: row.lead, lead: whole.lead, tracking: whole.tracking, consumer_ip: whole.consumerIp };
}

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a stored row, read as it is; each test asserts on the columns it names.

async function storedRow(db: Queryable, table: Table, id: string): Promise<{ row: Row; stored: StoredContact }> {
  const rows = await rowsOf<Row>(db, `SELECT lead, tracking, consumer_ip, ip_source, contact FROM ${table} WHERE id = $1`, [id]);
  if (rows.length !== 1) throw new Error(`no ${table} row ${id}`);
  return { row: rows[0], stored: contactColumnsOf(rows[0]) };
}

/** A row's contact columns as libs/domain names them. */
function contactColumnsOf(r: Row): StoredContact {
  return { lead: r.lead, tracking: r.tracking ?? {}, consumerIp: r.consumer_ip, ipSource: r.ip_source as IpSource };
}

/** The contact columns of these records as stored now (`lead`, `consumer_ip`, `tracking`), in no particular order. */
export async function contactColumnsOfRows(
  db: Queryable,
  table: Table,
  ids: readonly string[],
): Promise<Array<{ lead: unknown; consumer_ip: string; tracking: unknown }>> {
  return rowsOf(db, `SELECT lead, consumer_ip, tracking FROM ${table} WHERE id = ANY($1::uuid[])`, [ids]);
}

/** The sealed contact documents of these records as stored now (null where a record holds none). */
export async function sealedOf(db: Queryable, table: Table, ids: readonly string[]): Promise<Map<string, SealedContact | null>> {
  const rows = (await rowsOf(db, `SELECT id, contact FROM ${table} WHERE id = ANY($1::uuid[])`, [ids])) as Array<{
    id: string;
    contact: SealedContact | null;
  }>;
  return new Map(rows.map((r) => [r.id, r.contact]));
}
