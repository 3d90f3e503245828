import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Returns and statements (docs/returns.md):
 * - `offers.returns`: an own offer's return policy as the catalog validated
 *   it (`window_days`, `reasons`, `refunds_cap`); null: the offer takes no
 *   returns (every offer before this release).
 * - `api_keys.school_id`: a key is an affiliate's (the contract's endpoints)
 *   or a school's (the buyer API), never both.
 * - `lead_returns`: the return of a lead by the school that bought it, one
 *   row per lead at most (its primary key: two returns of one lead have one
 *   effect). It is appended, never updated: the reversal entries (the
 *   affiliate's payout and the school's price taken back, zero or negative)
 *   and the cap slots it gave back; the sale and the lead keep what they
 *   booked. Its sale, offer, school, campaign and affiliate are its lead's
 *   (one foreign key, to the lead, as the sale ledger's rows). Statements
 *   read it by party and time.
 */
export class Returns1765200000000 implements MigrationInterface {
  name = 'Returns1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE offers ADD COLUMN returns jsonb`);

    await q.query(`ALTER TABLE api_keys ALTER COLUMN affiliate_id DROP NOT NULL`);
    await q.query(`ALTER TABLE api_keys ADD COLUMN school_id uuid`);
    await q.query(`ALTER TABLE api_keys ADD CONSTRAINT fk_api_keys_school FOREIGN KEY (school_id) REFERENCES schools (id)`);
    await q.query(`ALTER TABLE api_keys ADD CONSTRAINT ck_api_keys_owner CHECK ((affiliate_id IS NULL) <> (school_id IS NULL))`);
    await q.query(`CREATE INDEX ix_api_keys_school_id ON api_keys (school_id)`);

    await q.query(`
      CREATE TABLE lead_returns (
        lead_id         uuid          PRIMARY KEY,
        sale_id         uuid          NOT NULL,
        offer_id        uuid          NOT NULL,
        school_id       uuid          NOT NULL,
        campaign_id     uuid          NOT NULL,
        affiliate_id    uuid          NOT NULL,
        reason          text          NOT NULL,
        note            text,
        source          text          NOT NULL,
        api_key_id      uuid,
        payout_reversal numeric(12,2),
        price_reversal  numeric(12,2),
        cap_slots       jsonb         NOT NULL DEFAULT '[]',
        returned_at     timestamptz   NOT NULL DEFAULT now(),
        CONSTRAINT fk_lead_returns_lead FOREIGN KEY (lead_id) REFERENCES leads (id),
        CONSTRAINT ck_lead_returns_reason CHECK (reason ~ '^[a-z][a-z0-9_]{0,39}$'),
        CONSTRAINT ck_lead_returns_note CHECK (char_length(note) <= 500),
        CONSTRAINT ck_lead_returns_source CHECK (source IN ('api', 'import')),
        CONSTRAINT ck_lead_returns_reversals CHECK (payout_reversal <= 0 AND price_reversal <= 0)
      )`);
    await q.query(`CREATE INDEX ix_lead_returns_affiliate_returned ON lead_returns (affiliate_id, returned_at)`);
    await q.query(`CREATE INDEX ix_lead_returns_school_returned ON lead_returns (school_id, returned_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE lead_returns`);
    await q.query(`DROP INDEX ix_api_keys_school_id`);
    await q.query(`ALTER TABLE api_keys DROP CONSTRAINT ck_api_keys_owner`);
    await q.query(`ALTER TABLE api_keys DROP CONSTRAINT fk_api_keys_school`);
    await q.query(`ALTER TABLE api_keys DROP COLUMN school_id`);
    await q.query(`ALTER TABLE api_keys ALTER COLUMN affiliate_id SET NOT NULL`);
    await q.query(`ALTER TABLE offers DROP COLUMN returns`);
  }
}
