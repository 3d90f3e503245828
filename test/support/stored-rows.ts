/**
 * The stored rows medium specs assert on, read as they are (the product's
 * repositories read them only in the shapes their use cases need). Test
 * statements live here, under test/, not in the specs beside the code.
 */
interface Queryable {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a stored row of any table, read as it is; each spec asserts on the columns it names.

/** Every column of these leads' revocation notices, oldest first. */
export async function revocationNoticesOf(db: Queryable, leadIds: readonly string[]): Promise<Row[]> {
  return (await db.query('SELECT * FROM revocation_notices WHERE lead_id = ANY($1::uuid[]) ORDER BY created_at, id', [leadIds])) as Row[];
}

/** A sending claim that lapsed, as a killed sender leaves it. */
export async function lapseRevocationClaim(db: Queryable, noticeId: string): Promise<void> {
  await db.query(`UPDATE revocation_notices SET sending_until = now() - interval '1 second' WHERE id = $1`, [noticeId]);
}

/** The contact data a lead was stored with: its lead document, consumer IP and tracking, and its consent evidence's IP. */
export async function storedContactOf(
  db: Queryable,
  leadId: string,
): Promise<{ lead: Row; consumer_ip: string; tracking: Row; consent_ip: string }> {
  const rows = (await db.query(
    'SELECT l.lead, l.consumer_ip, l.tracking, c.ip AS consent_ip FROM leads l JOIN consent_evidence c ON c.lead_id = l.id WHERE l.id = $1',
    [leadId],
  )) as Array<{ lead: Row; consumer_ip: string; tracking: Row; consent_ip: string }>;
  return rows[0];
}

/** A suppression key's audit trail, in order: what was done, by whom, why, and under which opt-out. */
export async function suppressionAuditOf(
  db: Queryable,
  keyHash: string,
): Promise<Array<{ action: string; actor: string; reason: string | null; opt_out_id: string | null }>> {
  return (await db.query('SELECT action, actor, reason, opt_out_id FROM suppression_audit WHERE key_hash = $1 ORDER BY id', [
    keyHash,
  ])) as Array<{ action: string; actor: string; reason: string | null; opt_out_id: string | null }>;
}

/** The opt-out that holds a suppression key now, or null when the key is not suppressed. */
export async function suppressionHolderOf(db: Queryable, keyHash: string): Promise<string | null> {
  const rows = (await db.query('SELECT opt_out_id FROM suppressions WHERE key_hash = $1', [keyHash])) as Array<{ opt_out_id: string }>;
  return rows[0]?.opt_out_id ?? null;
}

/** The opt-out requests recorded for an email's person key. */
export async function optOutRequestsOf(
  db: Queryable,
  emailKey: string,
): Promise<Array<{ received_at: Date; due_at: Date; reference: string; source: string }>> {
  return (await db.query('SELECT received_at, due_at, reference, source FROM opt_outs WHERE email_key = $1', [emailKey])) as Array<{
    received_at: Date;
    due_at: Date;
    reference: string;
    source: string;
  }>;
}

/** A lead's return rows (at most one: lead_id is the key). */
export async function leadReturnsOf(
  db: Queryable,
  leadId: string,
): Promise<Array<{ source: string; note: string | null; api_key_id: string | null; payout_reversal: string | null }>> {
  return (await db.query('SELECT source, note, api_key_id, payout_reversal FROM lead_returns WHERE lead_id = $1', [leadId])) as Array<{
    source: string;
    note: string | null;
    api_key_id: string | null;
    payout_reversal: string | null;
  }>;
}

/** Every column of a lead (undefined when there is none: a spec asserts on it). */
export async function storedLeadOf(db: Queryable, leadId: string): Promise<Row> {
  return ((await db.query('SELECT * FROM leads WHERE id = $1', [leadId])) as Row[])[0];
}

/** Every column of a lead's sales (one at most is live). */
export async function salesOfLead(db: Queryable, leadId: string): Promise<Row[]> {
  return (await db.query('SELECT * FROM sales WHERE lead_id = $1', [leadId])) as Row[];
}

/** Every column of a lead's delivery attempts. */
export async function deliveryAttemptsOf(db: Queryable, leadId: string): Promise<Row[]> {
  return (await db.query('SELECT * FROM delivery_attempts WHERE lead_id = $1', [leadId])) as Row[];
}

/** A pending lead received `hours` ago (what the pending-lead sweep looks for). */
export async function agePendingLead(db: Queryable, leadId: string, hours: number): Promise<void> {
  await db.query(`UPDATE leads SET created_at = now() - make_interval(hours => $2) WHERE id = $1 AND status = 'pending'`, [leadId, hours]);
}
