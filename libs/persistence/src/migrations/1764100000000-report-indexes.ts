import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `ops report` counts searches and submits over a time window across every
 * affiliate; the existing `(affiliate_id, created_at)` indexes serve one
 * affiliate's window only. These serve the window itself (a report then reads
 * the rows of its window, not the whole table). Results are counted through
 * their search (`ux_results_search_offer`), so they need no index of their own.
 */
export class ReportIndexes1764100000000 implements MigrationInterface {
  name = 'ReportIndexes1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX ix_searches_created_at ON searches (created_at)`);
    await q.query(`CREATE INDEX ix_leads_created_at ON leads (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_leads_created_at`);
    await q.query(`DROP INDEX ix_searches_created_at`);
  }
}
