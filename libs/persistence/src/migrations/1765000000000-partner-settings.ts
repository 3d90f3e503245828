import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A partner network's adapter settings (libs/domain PartnerSettings,
 * docs/partner-adapter.md): headers with `${env:NAME}` references, and for
 * the json adapter its search call, how its answer is read, and its submit
 * call with response rules. Stored as the catalog validated them; null for a
 * partner without any (every partner before this release).
 */
export class PartnerSettings1765000000000 implements MigrationInterface {
  name = 'PartnerSettings1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE partners ADD COLUMN settings jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE partners DROP COLUMN settings`);
  }
}
