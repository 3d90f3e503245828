import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The consent ledger (docs/consent-ledger.md): one row per consent event of a
 * live lead, appended by the statement that stores its consent evidence
 * (`seq` in append order, the hashes of the person's normalized email and
 * phone, the school), then linked into one hash chain by a single chainer
 * (`position`, `record_hash`, `prev_digest`, `digest`, `chained_at`); and one
 * seal per UTC day (the chain's head when the day was over). Kept with the
 * consent evidence (at least 5 years): the retention run never touches them.
 *
 * The append is on the submit path, so it has no foreign key (a trigger query
 * per submit; `consent verify` names a record whose evidence is missing) and
 * only the indexes a new row needs: every index on the chain's columns is
 * partial to chained rows, written by the chainer.
 */
export class ConsentLedger1764900000000 implements MigrationInterface {
  name = 'ConsentLedger1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE consent_ledger (
        seq          bigserial   PRIMARY KEY,
        lead_id      uuid        NOT NULL,
        school_id    uuid,
        email_sha256 char(64),
        phone_sha256 char(64),
        appended_at  timestamptz NOT NULL DEFAULT now(),
        position     bigint,
        record_hash  char(64),
        prev_digest  char(64),
        digest       char(64),
        chained_at   timestamptz,
        CONSTRAINT ck_consent_ledger_link CHECK (
          (position IS NULL AND record_hash IS NULL AND prev_digest IS NULL AND digest IS NULL AND chained_at IS NULL)
          OR (position >= 1 AND record_hash IS NOT NULL AND prev_digest IS NOT NULL AND digest IS NOT NULL AND chained_at IS NOT NULL))
      )`);
    await q.query('CREATE UNIQUE INDEX ux_consent_ledger_lead_id ON consent_ledger (lead_id)');
    await q.query('CREATE UNIQUE INDEX ux_consent_ledger_position ON consent_ledger (position) WHERE position IS NOT NULL');
    await q.query('CREATE INDEX ix_consent_ledger_unchained ON consent_ledger (seq) WHERE position IS NULL');
    await q.query('CREATE INDEX ix_consent_ledger_chained_at ON consent_ledger (chained_at) WHERE chained_at IS NOT NULL');
    await q.query('CREATE INDEX ix_consent_ledger_email ON consent_ledger (email_sha256) WHERE email_sha256 IS NOT NULL');
    await q.query('CREATE INDEX ix_consent_ledger_phone ON consent_ledger (phone_sha256) WHERE phone_sha256 IS NOT NULL');
    await q.query(`
      CREATE TABLE consent_seals (
        day         date        PRIMARY KEY,
        count       bigint      NOT NULL CONSTRAINT ck_consent_seals_count CHECK (count >= 1),
        head_digest char(64)    NOT NULL,
        sealed_at   timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE consent_seals');
    await q.query('DROP TABLE consent_ledger');
  }
}
