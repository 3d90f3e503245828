import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The key store's one table (docs/security.md, Encryption at rest), in a
 * database of its own: `data_keys`, one data key per search and per lead,
 * wrapped under a master key (`key_id`: which one, so `ops keys rewrap` finds
 * those under a retired key). A deletion deletes the person's rows: what
 * they encrypted cannot be read again, wherever it was copied. Nothing here
 * is contact data; the rows name no search, lead or person.
 */
export class DataKeys1765300000000 implements MigrationInterface {
  name = 'DataKeys1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE data_keys (
       id         uuid PRIMARY KEY,
       key_id     text NOT NULL,
       wrapped    bytea NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now()
     )`);
    await q.query(`CREATE INDEX ix_data_keys_key_id ON data_keys (key_id, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE data_keys`);
  }
}
