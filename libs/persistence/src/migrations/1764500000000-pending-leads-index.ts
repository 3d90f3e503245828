import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Delivery reads how many leads wait for their buyer's answer and how old the
 * oldest is (`delivery_pending_leads`, `delivery_pending_lead_oldest_seconds`,
 * docs/observability.md) every 15 s in every replica. A partial index holds
 * only the pending leads, a handful at any time, so the count and the oldest
 * come from it alone, however large `leads` grows.
 */
export class PendingLeadsIndex1764500000000 implements MigrationInterface {
  name = 'PendingLeadsIndex1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX ix_leads_pending_created_at ON leads (created_at) WHERE status = 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_leads_pending_created_at`);
  }
}
