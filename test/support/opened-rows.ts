import type { StoredContact } from '../../libs/domain/src';
import { keyStoreSealer } from './medium-world';
import { TEST_DATABASE_URL } from './test-env';

/** A pg Client (rows in `rows`) or a TypeORM DataSource (rows as the answer). */
interface Queryable {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] } | unknown[]>;
}

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a stored row, read as it is; each test asserts on the columns it names.

const STATEMENTS = {
  searches: 'SELECT *, lead AS stored_lead FROM searches WHERE id = $1',
  leads: 'SELECT *, lead AS stored_lead FROM leads WHERE id = $1',
} as const;

/**
 * A stored search or lead with its contact data opened, as an operator's
 * reveal sees it (docs/security.md, Encryption at rest): `lead`, `tracking`
 * and `consumer_ip` whole; `stored_lead` and `contact` as the row holds them.
 * Null when there is no such row.
 */
export async function openedRow(
  db: Queryable,
  table: keyof typeof STATEMENTS,
  id: string,
  databaseUrl = TEST_DATABASE_URL,
): Promise<Row | null> {
  const answer = await db.query(STATEMENTS[table], [id]);
  const [row] = (Array.isArray(answer) ? answer : answer.rows) as Row[];
  if (!row) return null;
  const whole: StoredContact = await keyStoreSealer(databaseUrl).openRecord(
    { lead: row.lead, tracking: row.tracking, consumerIp: row.consumer_ip, ipSource: row.ip_source },
    row.contact,
  );
  return { ...row, lead: whole.lead, tracking: whole.tracking, consumer_ip: whole.consumerIp };
}
