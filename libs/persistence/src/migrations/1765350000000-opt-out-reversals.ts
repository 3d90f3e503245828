import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Opt-out reversals (docs/opt-outs.md, "Reversing opt-outs"):
 * - `opt_outs.reversed_at`, `reversed_by`, `reversal_reason`: an operator
 *   reversed the request (who, when, why; all three or none). A reversed
 *   opt-out holds no suppression and no notice waiting to be sent.
 * - `revocation_notices.cancelled_at`: the notice is never sent (again): its
 *   opt-out was reversed before its buyer acknowledged it. A later opt-out of
 *   the same person takes it back (same id) when the buyer was never told.
 * - indexes: a key's opt-outs by time (`optout list --key`), and the
 *   opt-outs of a suppression key (who else holds it when one is reversed).
 *   The outbox's partial indexes leave cancelled notices out.
 */
export class OptOutReversals1765350000000 implements MigrationInterface {
  name = 'OptOutReversals1765350000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE opt_outs
      ADD COLUMN reversed_at     timestamptz,
      ADD COLUMN reversed_by     text CONSTRAINT ck_opt_outs_reversed_by CHECK (char_length(reversed_by) BETWEEN 1 AND 200),
      ADD COLUMN reversal_reason text CONSTRAINT ck_opt_outs_reversal_reason CHECK (char_length(reversal_reason) BETWEEN 1 AND 500),
      ADD CONSTRAINT ck_opt_outs_reversal CHECK ((reversed_at IS NULL) = (reversed_by IS NULL) AND (reversed_at IS NULL) = (reversal_reason IS NULL))`);
    await q.query('CREATE INDEX ix_opt_outs_api_key ON opt_outs (api_key_id, received_at) WHERE api_key_id IS NOT NULL');
    await q.query('CREATE INDEX ix_opt_outs_email ON opt_outs (email_key) WHERE email_key IS NOT NULL');
    await q.query('CREATE INDEX ix_opt_outs_phone ON opt_outs (phone_key) WHERE phone_key IS NOT NULL');
    await q.query('ALTER TABLE revocation_notices ADD COLUMN cancelled_at timestamptz');
    await q.query('CREATE INDEX ix_revocation_notices_opt_out ON revocation_notices (opt_out_id)');
    await q.query('DROP INDEX ix_revocation_notices_unqueued');
    await q.query(
      'CREATE INDEX ix_revocation_notices_unqueued ON revocation_notices (created_at) WHERE queued_at IS NULL AND cancelled_at IS NULL',
    );
    await q.query('DROP INDEX ix_revocation_notices_open');
    await q.query(
      'CREATE INDEX ix_revocation_notices_open ON revocation_notices (due_at) WHERE acknowledged_at IS NULL AND cancelled_at IS NULL',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX ix_revocation_notices_open');
    await q.query('CREATE INDEX ix_revocation_notices_open ON revocation_notices (due_at) WHERE acknowledged_at IS NULL');
    await q.query('DROP INDEX ix_revocation_notices_unqueued');
    await q.query('CREATE INDEX ix_revocation_notices_unqueued ON revocation_notices (created_at) WHERE queued_at IS NULL');
    await q.query('DROP INDEX ix_revocation_notices_opt_out');
    await q.query('ALTER TABLE revocation_notices DROP COLUMN cancelled_at');
    await q.query('DROP INDEX ix_opt_outs_phone');
    await q.query('DROP INDEX ix_opt_outs_email');
    await q.query('DROP INDEX ix_opt_outs_api_key');
    await q.query(
      'ALTER TABLE opt_outs DROP CONSTRAINT ck_opt_outs_reversal, DROP COLUMN reversal_reason, DROP COLUMN reversed_by, DROP COLUMN reversed_at',
    );
  }
}
