import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Opt-outs (docs/opt-outs.md): every request as received (`opt_outs`, the
 * hashes of the normalized email and phone only), the suppression it sets per
 * key (`suppressions`: what searches and submits check), the operators'
 * audit of suppressing and lifting (`suppression_audit`), and one revocation
 * notice per lead a buyer accepted (`revocation_notices`: the outbox the
 * delivery service relays through RabbitMQ, with each buyer's receipt;
 * `relay` names the system whose delivery service relays them). None
 * holds contact data; all are kept by the retention run (legal records).
 */
export class OptOuts1765100000000 implements MigrationInterface {
  name = 'OptOuts1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE opt_outs (
        id           uuid        PRIMARY KEY,
        received_at  timestamptz NOT NULL,
        due_at       timestamptz NOT NULL,
        recorded_at  timestamptz NOT NULL DEFAULT now(),
        source       text        NOT NULL CONSTRAINT ck_opt_outs_source CHECK (source IN ('affiliate', 'operator', 'deletion')),
        affiliate_id uuid,
        api_key_id   uuid,
        reference    text        CONSTRAINT ck_opt_outs_reference CHECK (char_length(reference) <= 200),
        relay        text        NOT NULL,
        email_sha256 char(64)    CONSTRAINT ck_opt_outs_email CHECK (email_sha256 ~ '^[0-9a-f]{64}$'),
        phone_sha256 char(64)    CONSTRAINT ck_opt_outs_phone CHECK (phone_sha256 ~ '^[0-9a-f]{64}$'),
        CONSTRAINT ck_opt_outs_key CHECK (email_sha256 IS NOT NULL OR phone_sha256 IS NOT NULL)
      )`);
    await q.query('CREATE INDEX ix_opt_outs_recorded_at ON opt_outs (recorded_at)');
    await q.query(`
      CREATE TABLE suppressions (
        key_type      text        NOT NULL CONSTRAINT ck_suppressions_key_type CHECK (key_type IN ('email', 'phone')),
        key_hash      char(64)    NOT NULL CONSTRAINT ck_suppressions_key_hash CHECK (key_hash ~ '^[0-9a-f]{64}$'),
        opt_out_id    uuid        NOT NULL CONSTRAINT fk_suppressions_opt_out REFERENCES opt_outs (id),
        suppressed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (key_type, key_hash)
      )`);
    await q.query(`
      CREATE TABLE suppression_audit (
        id         bigserial   PRIMARY KEY,
        at         timestamptz NOT NULL DEFAULT now(),
        action     text        NOT NULL CONSTRAINT ck_suppression_audit_action CHECK (action IN ('suppress', 'lift')),
        key_type   text        NOT NULL,
        key_hash   char(64)    NOT NULL,
        opt_out_id uuid,
        actor      text        NOT NULL,
        reason     text
      )`);
    await q.query('CREATE INDEX ix_suppression_audit_key ON suppression_audit (key_type, key_hash)');
    await q.query(`
      CREATE TABLE revocation_notices (
        id              uuid        PRIMARY KEY,
        opt_out_id      uuid        NOT NULL CONSTRAINT fk_revocation_notices_opt_out REFERENCES opt_outs (id),
        lead_id         uuid        NOT NULL,
        offer_id        uuid        NOT NULL,
        buyer_kind      text        NOT NULL CONSTRAINT ck_revocation_notices_buyer_kind CHECK (buyer_kind IN ('school', 'partner')),
        buyer_id        uuid        NOT NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        due_at          timestamptz NOT NULL,
        queued_at       timestamptz,
        attempts        integer     NOT NULL DEFAULT 0,
        sending_until   timestamptz,
        last_error      text,
        acknowledged_at timestamptz,
        receipt         jsonb
      )`);
    await q.query('CREATE UNIQUE INDEX ux_revocation_notices_lead_id ON revocation_notices (lead_id)');
    await q.query('CREATE INDEX ix_revocation_notices_unqueued ON revocation_notices (created_at) WHERE queued_at IS NULL');
    await q.query('CREATE INDEX ix_revocation_notices_open ON revocation_notices (due_at) WHERE acknowledged_at IS NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE revocation_notices');
    await q.query('DROP TABLE suppression_audit');
    await q.query('DROP TABLE suppressions');
    await q.query('DROP TABLE opt_outs');
  }
}
