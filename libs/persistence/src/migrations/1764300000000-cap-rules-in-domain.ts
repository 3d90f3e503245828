import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The SQL functions `cap_scope()` and `cap_period_start()` go: which
 * `cap_usage` row a cap counts in (its scope, and the start of its period in
 * the cap's timezone) is decided once, in libs/domain (caps/caps.ts), and the
 * statements take the slots as parameters. Rows written before keep their
 * keys: the domain's definition is the same (scope text; the start of the
 * hour, day, ISO week or month in the cap's zone; the epoch for `total`).
 */
export class CapRulesInDomain1764300000000 implements MigrationInterface {
  name = 'CapRulesInDomain1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS cap_period_start(text, text, timestamptz)`);
    await q.query(`DROP FUNCTION IF EXISTS cap_scope(uuid, uuid)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE FUNCTION cap_scope(offer_id uuid, campaign_id uuid) RETURNS text
         LANGUAGE sql IMMUTABLE PARALLEL SAFE
         AS $$ SELECT CASE WHEN campaign_id IS NULL THEN 'offer:' || offer_id ELSE 'campaign:' || campaign_id || ':offer:' || offer_id END $$`,
    );
    await q.query(
      `CREATE FUNCTION cap_period_start(period text, tz text, at timestamptz) RETURNS timestamptz
         LANGUAGE sql STABLE PARALLEL SAFE
         AS $$ SELECT CASE WHEN period = 'total' THEN timestamptz '1970-01-01 00:00:00+00'
                           ELSE date_trunc(period, at, tz) END $$`,
    );
  }
}
