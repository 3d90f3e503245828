import { MigrationInterface, QueryRunner } from 'typeorm';

/** Idempotent message handling: a handler's effect and its message id commit in one transaction. */
export class ProcessedMessages1763700000000 implements MigrationInterface {
  name = 'ProcessedMessages1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE processed_messages (
        consumer     text        NOT NULL,
        message_id   text        NOT NULL,
        message_type text        NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, message_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE processed_messages');
  }
}
