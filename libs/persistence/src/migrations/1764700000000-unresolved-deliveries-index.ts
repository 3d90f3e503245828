import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The deliveries to reconcile (`ops deliveries unresolved`): attempts a crash
 * cut whose buyer could not be asked again, by start. Partial: they are few
 * among all attempts.
 */
export class UnresolvedDeliveriesIndex1764700000000 implements MigrationInterface {
  name = 'UnresolvedDeliveriesIndex1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX ix_delivery_attempts_interrupted ON delivery_attempts (started_at) WHERE outcome = 'interrupted'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX ix_delivery_attempts_interrupted');
  }
}
