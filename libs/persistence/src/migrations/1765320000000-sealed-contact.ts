import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contact data sealed at rest (docs/security.md, Encryption at rest):
 * - `searches.contact`, `leads.contact`: the record's contact data (names,
 *   email, phone, date of birth, street, city, the consumer's IP) as a sealed
 *   document `{of, key, iv, data}`, AES-256-GCM under a data key of the key
 *   store (a database of its own); `lead` keeps the readable part, and
 *   `consumer_ip` is `''` beside a sealed part. Null: nothing sealed (a
 *   suppressed person's record, an erased one, or one stored before).
 * - `contact_reveals`: who read a lead's contact data through `ops lead show
 *   --reveal`, and when.
 */
export class SealedContact1765320000000 implements MigrationInterface {
  name = 'SealedContact1765320000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE searches ADD COLUMN contact jsonb`);
    await q.query(`ALTER TABLE leads ADD COLUMN contact jsonb`);
    await q.query(`CREATE TABLE contact_reveals (
       id          bigserial PRIMARY KEY,
       lead_id     uuid NOT NULL,
       operator    text NOT NULL,
       reason      text,
       revealed_at timestamptz NOT NULL DEFAULT now()
     )`);
    await q.query(`CREATE INDEX ix_contact_reveals_lead_id ON contact_reveals (lead_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE contact_reveals`);
    await q.query(`ALTER TABLE leads DROP COLUMN contact`);
    await q.query(`ALTER TABLE searches DROP COLUMN contact`);
  }
}
