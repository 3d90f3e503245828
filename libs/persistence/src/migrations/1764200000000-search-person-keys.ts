import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `searches.person_keys`: the lead's duplicate keys (`[{type, hash}]`,
 * normalized hashes, no contact data; `[]` for a test search, which skips the
 * person check), written with the search. A partner's answer re-checks its
 * results against the person's sales in the same statement that reads the
 * search, without normalizing the lead again. NULL on searches stored before
 * this column (the orchestrator then computes the keys from the lead).
 */
export class SearchPersonKeys1764200000000 implements MigrationInterface {
  name = 'SearchPersonKeys1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE searches ADD COLUMN person_keys jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE searches DROP COLUMN person_keys`);
  }
}
