import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What submits and direct posts need (issue: submit and delivery):
 * - `lead_group_id` on leads and sales: the lead whose sales count together,
 *   i.e. the search for a result submit, and the first post for a direct post
 *   (a retry naming the returned `svc_lead_id` joins its group). The sales
 *   rules (at most 3, `exclusive`, `true_exclusive`, one sale per offer) hold
 *   per group; `ux_sales_live_group_offer` replaces the per-search index.
 * - `leads.origin_lead_id`: the earlier direct post a retry named.
 * - `leads.decided_by`: whether the service's checks or the buyer's system
 *   decided; `leads.field`: the request field a refusal is about.
 * - `sales.cap_slots`: the cap_usage rows the reservation took, so a release
 *   gives back exactly those (a period may have rolled over meanwhile).
 */
export class SubmitSales1764000000000 implements MigrationInterface {
  name = 'SubmitSales1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE leads ADD COLUMN lead_group_id uuid`);
    await q.query(`UPDATE leads SET lead_group_id = COALESCE(search_id, id)`);
    await q.query(`ALTER TABLE leads ALTER COLUMN lead_group_id SET NOT NULL`);
    await q.query(`ALTER TABLE leads ADD COLUMN origin_lead_id uuid`);
    await q.query(`ALTER TABLE leads ADD CONSTRAINT fk_leads_origin_lead FOREIGN KEY (origin_lead_id) REFERENCES leads (id)`);
    await q.query(`ALTER TABLE leads ADD COLUMN decided_by text`);
    await q.query(`ALTER TABLE leads ADD CONSTRAINT ck_leads_decided_by CHECK (decided_by IN ('service', 'buyer'))`);
    await q.query(`ALTER TABLE leads ADD COLUMN field text`);
    await q.query(`CREATE INDEX ix_leads_lead_group ON leads (lead_group_id)`);

    await q.query(`ALTER TABLE sales ADD COLUMN lead_group_id uuid`);
    await q.query(`UPDATE sales SET lead_group_id = COALESCE(search_id, lead_id)`);
    await q.query(`ALTER TABLE sales ALTER COLUMN lead_group_id SET NOT NULL`);
    await q.query(`ALTER TABLE sales ADD COLUMN cap_slots jsonb NOT NULL DEFAULT '[]'`);
    await q.query(`DROP INDEX ux_sales_live_search_offer`);
    await q.query(`CREATE UNIQUE INDEX ux_sales_live_group_offer ON sales (lead_group_id, offer_id) WHERE status <> 'released'`);
    await q.query(`CREATE INDEX ix_sales_group_status ON sales (lead_group_id, status)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_sales_group_status`);
    await q.query(`DROP INDEX ux_sales_live_group_offer`);
    await q.query(`CREATE UNIQUE INDEX ux_sales_live_search_offer ON sales (search_id, offer_id) WHERE status <> 'released'`);
    await q.query(`ALTER TABLE sales DROP COLUMN cap_slots`);
    await q.query(`ALTER TABLE sales DROP COLUMN lead_group_id`);
    await q.query(`DROP INDEX ix_leads_lead_group`);
    await q.query(`ALTER TABLE leads DROP COLUMN field`);
    await q.query(`ALTER TABLE leads DROP CONSTRAINT ck_leads_decided_by`);
    await q.query(`ALTER TABLE leads DROP COLUMN decided_by`);
    await q.query(`ALTER TABLE leads DROP CONSTRAINT fk_leads_origin_lead`);
    await q.query(`ALTER TABLE leads DROP COLUMN origin_lead_id`);
    await q.query(`ALTER TABLE leads DROP COLUMN lead_group_id`);
  }
}
