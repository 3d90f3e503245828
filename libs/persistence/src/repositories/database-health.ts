import type { Queryable } from '../queries/queryable';

/** A round trip that proves PostgreSQL answers (readiness checks, the gateway's outage probe). */
export async function pingDatabase(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
