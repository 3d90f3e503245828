import type { PersonKeySecret } from '@lr/domain';
import { MigrationInterface, QueryRunner } from 'typeorm';

/** The transaction-local setting the secret is handed to the statements in: never part of a statement's text or parameters. */
const SECRET_SETTING = 'lead_router.person_key_secret';

/**
 * A stored plain SHA-256 (hex) as its person key: lower-case hex HMAC-SHA-256
 * under the server secret of its 64 hex characters, exactly libs/domain
 * keyedPersonKey (a medium test compares the two). NULL stays NULL.
 */
const KEYED = (column: string) => `encode(hmac(lower(${column}), current_setting('${SECRET_SETTING}'), 'sha256'), 'hex')`;

/**
 * Keyed person keys (docs/security.md, "Person keys"): every stored person
 * key becomes HMAC-SHA-256 under the server secret (PERSON_KEY_SECRET) of the
 * plain SHA-256 it was:
 * - `dedupe_keys.key_hash`, `suppressions.key_hash`, `suppression_audit.key_hash`;
 * - `opt_outs`: `email_sha256`/`phone_sha256` become `email_key`/`phone_key`;
 * - `searches.person_keys`: each `hash`;
 * - `consent_ledger`: `email_key`/`phone_key` for every row (what a person's
 *   events are found by). A record already chained keeps its form (1) and
 *   the plain hashes it was chained with, now `form1_email_sha256` and
 *   `form1_phone_sha256`: its bytes are covered by its digest and its day's
 *   seal, so rewriting them would break the proof the ledger exists for. A
 *   row not chained yet becomes a form-2 record (its keys only).
 *
 * In SQL with pgcrypto's hmac() (in Debian's postgresql-15 and the official
 * images): one set-based statement per table inside the migration's
 * transaction, no row crosses the network. The secret reaches the server only
 * as a transaction-local setting made by a statement of its own, so it is in
 * no long statement's text or parameters (which a slow-statement log would
 * print). The renamed consent and opt-out columns make a replica still
 * running the previous release fail its writes instead of storing plain
 * hashes beside keyed ones (docs/security.md, "Deploying the conversion").
 * Not reversible: the plain hashes cannot be had back from the keys.
 */
export function keyedPersonKeysMigration(secret: PersonKeySecret): new () => MigrationInterface {
  return class KeyedPersonKeys1765300000000 implements MigrationInterface {
    name = 'KeyedPersonKeys1765300000000';

    async up(q: QueryRunner): Promise<void> {
      await q.query(`CREATE EXTENSION IF NOT EXISTS pgcrypto`);
      // Each UPDATE rewrites a whole table: no per-statement limit of the migration's connection applies to them.
      await q.query(`SET LOCAL statement_timeout = 0`);
      await q.query(`SELECT set_config('${SECRET_SETTING}', $1, true)`, [secret]);

      await q.query(`UPDATE dedupe_keys SET key_hash = ${KEYED('key_hash')}`);
      await q.query(`UPDATE suppressions SET key_hash = ${KEYED('key_hash')}`);
      await q.query(`UPDATE suppression_audit SET key_hash = ${KEYED('key_hash')}`);

      await q.query(`ALTER TABLE opt_outs RENAME COLUMN email_sha256 TO email_key`);
      await q.query(`ALTER TABLE opt_outs RENAME COLUMN phone_sha256 TO phone_key`);
      await q.query(`UPDATE opt_outs SET email_key = ${KEYED('email_key')}, phone_key = ${KEYED('phone_key')}`);

      await q.query(`
        UPDATE searches s
           SET person_keys = (SELECT jsonb_agg(k.e || jsonb_build_object('hash', ${KEYED("k.e ->> 'hash'")}) ORDER BY k.i)
                                FROM jsonb_array_elements(s.person_keys) WITH ORDINALITY AS k(e, i))
         WHERE jsonb_typeof(s.person_keys) = 'array' AND jsonb_array_length(s.person_keys) > 0`);

      await q.query(`ALTER TABLE consent_ledger RENAME COLUMN email_sha256 TO form1_email_sha256`);
      await q.query(`ALTER TABLE consent_ledger RENAME COLUMN phone_sha256 TO form1_phone_sha256`);
      await q.query(`ALTER TABLE consent_ledger
                       ADD COLUMN record_form smallint NOT NULL DEFAULT 2 CONSTRAINT ck_consent_ledger_record_form CHECK (record_form IN (1, 2)),
                       ADD COLUMN email_key char(64),
                       ADD COLUMN phone_key char(64)`);
      await q.query(`
        UPDATE consent_ledger
           SET record_form = CASE WHEN position IS NULL THEN 2 ELSE 1 END,
               email_key = ${KEYED('form1_email_sha256')},
               phone_key = ${KEYED('form1_phone_sha256')},
               form1_email_sha256 = CASE WHEN position IS NULL THEN NULL ELSE form1_email_sha256 END,
               form1_phone_sha256 = CASE WHEN position IS NULL THEN NULL ELSE form1_phone_sha256 END`);
      await q.query(`ALTER TABLE consent_ledger ADD CONSTRAINT ck_consent_ledger_form1_hashes
                       CHECK (record_form = 1 OR (form1_email_sha256 IS NULL AND form1_phone_sha256 IS NULL))`);
      await q.query(`DROP INDEX ix_consent_ledger_email`);
      await q.query(`DROP INDEX ix_consent_ledger_phone`);
      await q.query(`CREATE INDEX ix_consent_ledger_email_key ON consent_ledger (email_key) WHERE email_key IS NOT NULL`);
      await q.query(`CREATE INDEX ix_consent_ledger_phone_key ON consent_ledger (phone_key) WHERE phone_key IS NOT NULL`);
    }

    async down(): Promise<void> {
      throw new Error(
        'KeyedPersonKeys1765300000000 cannot be undone: the plain hashes cannot be had back from the keys (restore a backup)',
      );
    }
  };
}
