import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the search orchestrator needs to run a search across services:
 * - `searches.state_version`: bumped by every change of a search's result list,
 *   so a slower writer can never overwrite newer hot state in Redis.
 * - `searches.result_order`: the result ids best first. A partner result merged
 *   into the list changes one array on the search instead of rewriting the rank
 *   of every result row (each with its whole entry), so `results.rank` goes.
 * - `searches.offer_decisions`: why each offer on the campaign was or was not
 *   shown (operators read it; never shown to affiliates).
 * - `search_partner_calls`: one row per partner asked during a search, pending
 *   until its answer (or failure) arrives; the search is done when none is pending.
 * - `cap_scope()` and `cap_period_start()`: which `cap_usage` row a cap
 *   counts in. No code calls them any more: libs/domain caps/ is the one
 *   definition now, and the statements take the slots as parameters. They
 *   stay in the schema for one release, so the previous release keeps
 *   working while it is rolled out or back (docs/runbooks/deploy.md); a
 *   later migration drops them. A cap on the offer counts in `offer:<offer>`, a cap
 *   on a campaign's offer in `campaign:<campaign>:offer:<offer>`; the period
 *   starts at the hour, day, ISO week (Monday) or month in the cap's timezone.
 */
export class SearchFanOut1763900000000 implements MigrationInterface {
  name = 'SearchFanOut1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE searches ADD COLUMN state_version integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE searches ADD COLUMN offer_decisions jsonb NOT NULL DEFAULT '{}'`);
    await q.query(`ALTER TABLE searches ADD COLUMN result_order uuid[] NOT NULL DEFAULT '{}'`);
    await q.query(`DROP INDEX ix_results_search_rank`);
    await q.query(`ALTER TABLE results DROP COLUMN rank`); // ux_results_search_offer still serves lookups by search
    await q.query(
      `CREATE TABLE search_partner_calls (
         search_id    uuid        NOT NULL,
         partner_id   uuid        NOT NULL,
         offer_ids    uuid[]      NOT NULL,
         status       text        NOT NULL,
         requested_at timestamptz NOT NULL DEFAULT now(),
         answered_at  timestamptz,
         latency_ms   integer,
         result_count integer,
         detail       text,
         PRIMARY KEY (search_id, partner_id),
         CONSTRAINT fk_search_partner_calls_search FOREIGN KEY (search_id) REFERENCES searches (id),
         CONSTRAINT fk_search_partner_calls_partner FOREIGN KEY (partner_id) REFERENCES partners (id),
         CONSTRAINT ck_search_partner_calls_status
           CHECK (status IN ('pending', 'answered', 'timeout', 'error', 'circuit_open', 'expired'))
       )`,
    );
    await q.query(
      `CREATE FUNCTION cap_scope(offer_id uuid, campaign_id uuid) RETURNS text
         LANGUAGE sql IMMUTABLE PARALLEL SAFE
         AS $$ SELECT CASE WHEN campaign_id IS NULL THEN 'offer:' || offer_id
                           ELSE 'campaign:' || campaign_id || ':offer:' || offer_id END $$`,
    );
    await q.query(
      `CREATE FUNCTION cap_period_start(period text, tz text, at timestamptz) RETURNS timestamptz
         LANGUAGE sql STABLE PARALLEL SAFE
         AS $$ SELECT CASE WHEN period = 'total' THEN timestamptz '1970-01-01 00:00:00+00'
                           ELSE date_trunc(period, at, tz) END $$`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION cap_period_start(text, text, timestamptz)`);
    await q.query(`DROP FUNCTION cap_scope(uuid, uuid)`);
    await q.query(`DROP TABLE search_partner_calls`);
    await q.query(`ALTER TABLE results ADD COLUMN rank integer NOT NULL DEFAULT 0`);
    await q.query(`CREATE INDEX ix_results_search_rank ON results (search_id, rank)`);
    await q.query(`ALTER TABLE searches DROP COLUMN result_order`);
    await q.query(`ALTER TABLE searches DROP COLUMN offer_decisions`);
    await q.query(`ALTER TABLE searches DROP COLUMN state_version`);
  }
}
