import { MigrationInterface, QueryRunner } from 'typeorm';
import { addDays, dayOf, daySuffix, KEPT_DAY, LEGACY_DAY, PARTITION_DAYS_AHEAD } from '../partitions/partition-days';
import { createDayPartitions } from '../queries/day-partitions';

/**
 * Bounded search storage (docs/storage.md):
 * - A search keeps what it showed in its own row: the result ids best first
 *   (`result_order`), beside them the template each result was built from
 *   (`result_templates`) and its expiry (`result_expires`), and what a partner
 *   result needs on submit (`result_partner`). A template is the result entry
 *   without its id and expiry, stored once per day in `result_templates`
 *   (content-addressed: the first 128 bits of the SHA-256 of its text). The
 *   `results` view rebuilds every result entry from them, with the columns the
 *   `results` table had.
 * - `searches`, `result_templates`, `search_partner_calls` and
 *   `processed_messages` are partitioned by day (`part_day`, UTC). A search's
 *   day is the one its id was made on (a UUIDv7 carries its time:
 *   `lr_id_day`); searches stored before, or with an id that carries no
 *   time, are in the `legacy` partition; searches kept past the search
 *   retention (they have a submit) in the `kept` partition. Retention drops
 *   whole partitions.
 * - Foreign keys to `searches` and `results` go: a partitioned table's keys
 *   include the day, and a view has none. The retention run keeps every
 *   search a lead names (tested).
 * - `processed_messages` records are claimed through `lr_claim_message`,
 *   which holds an advisory lock on the record's key so that one key is
 *   claimed once across partitions.
 *
 * Existing rows move into the new layout in this migration's transaction:
 * searches and results are locked for the copy (docs/runbooks/retention.md,
 * "Upgrading", gives the time it takes per 100,000 searches).
 */
export class BoundedSearchStorage1764800000000 implements MigrationInterface {
  name = 'BoundedSearchStorage1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE FUNCTION lr_id_day(id uuid) RETURNS date LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
      SELECT CASE WHEN substr(id::text, 15, 1) = '7'
        THEN (timestamp 'epoch' + ('x' || translate(substr(id::text, 1, 13), '-', ''))::bit(48)::bigint * interval '1 millisecond')::date
        ELSE DATE '${LEGACY_DAY}' END $$`);
    await q.query(`CREATE FUNCTION lr_result_entry(id uuid, body text, expires_at timestamptz) RETURNS text LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
      SELECT '{"svc_result_id":"' || id::text || '",' || CASE WHEN body = '{}' THEN '' ELSE substr(body, 2, length(body) - 2) || ',' END
             || '"expires_at":"' || to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"}' $$`);

    for (const t of ['searches', 'results', 'search_partner_calls', 'processed_messages'])
      await q.query(`ALTER TABLE ${t} RENAME TO ${t}_unpartitioned`);
    await q.query(`ALTER TABLE leads DROP CONSTRAINT fk_leads_search, DROP CONSTRAINT fk_leads_result`);
    for (const [table, constraint] of [
      ['searches_unpartitioned', 'searches_pkey'],
      ['searches_unpartitioned', 'fk_searches_affiliate'],
      ['searches_unpartitioned', 'fk_searches_campaign'],
      ['searches_unpartitioned', 'fk_searches_api_key'],
      ['searches_unpartitioned', 'ck_searches_ip_source'],
      ['searches_unpartitioned', 'ck_searches_accepted_count'],
      ['search_partner_calls_unpartitioned', 'search_partner_calls_pkey'],
      ['search_partner_calls_unpartitioned', 'ck_search_partner_calls_status'],
      ['processed_messages_unpartitioned', 'processed_messages_pkey'],
    ])
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${constraint} CASCADE`);
    for (const ix of ['ix_searches_affiliate_created', 'ix_searches_campaign_id', 'ix_searches_created_at'])
      await q.query(`DROP INDEX ${ix}`);

    await q.query(`CREATE TABLE searches (
       id                      uuid        NOT NULL,
       part_day                date        NOT NULL,
       affiliate_id            uuid        NOT NULL,
       campaign_id             uuid        NOT NULL,
       api_key_id              uuid        NOT NULL,
       is_test                 boolean     NOT NULL DEFAULT false,
       lead                    jsonb       NOT NULL,
       tracking                jsonb       NOT NULL DEFAULT '{}',
       consumer_ip             text        NOT NULL,
       ip_source               text        NOT NULL,
       tcpa_consent            boolean,
       form_cert_url           text,
       universal_lead_cert     text,
       created_at              timestamptz NOT NULL DEFAULT now(),
       closes_at               timestamptz NOT NULL,
       processing_done_at      timestamptz,
       accepted_count          integer     NOT NULL DEFAULT 0,
       true_exclusive_accepted boolean     NOT NULL DEFAULT false,
       submitted_at            timestamptz,
       state_version           integer     NOT NULL DEFAULT 0,
       offer_decisions         jsonb       NOT NULL DEFAULT '{}',
       result_order            uuid[]      NOT NULL DEFAULT '{}',
       result_templates        uuid[]      NOT NULL DEFAULT '{}',
       result_expires          timestamptz[] NOT NULL DEFAULT '{}',
       result_partner          jsonb,
       person_keys             jsonb,
       CONSTRAINT pk_searches PRIMARY KEY (id, part_day),
       CONSTRAINT fk_searches_affiliate FOREIGN KEY (affiliate_id) REFERENCES affiliates (id),
       CONSTRAINT fk_searches_campaign FOREIGN KEY (campaign_id) REFERENCES campaigns (id),
       CONSTRAINT fk_searches_api_key FOREIGN KEY (api_key_id) REFERENCES api_keys (id),
       CONSTRAINT ck_searches_ip_source CHECK (ip_source IN ('consumer', 'caller_server')),
       CONSTRAINT ck_searches_accepted_count CHECK (accepted_count >= 0),
       CONSTRAINT ck_searches_results CHECK (cardinality(result_templates) = cardinality(result_order) AND cardinality(result_expires) = cardinality(result_order))
     ) PARTITION BY RANGE (part_day)`);
    await q.query(`CREATE INDEX ix_searches_affiliate_created ON searches (affiliate_id, created_at)`);
    await q.query(`CREATE INDEX ix_searches_campaign_id ON searches (campaign_id)`);
    await q.query(`CREATE INDEX ix_searches_created_at ON searches (created_at)`);

    await q.query(`CREATE TABLE result_templates (
       part_day date          NOT NULL,
       digest   uuid          NOT NULL,
       offer_id uuid          NOT NULL,
       payout   numeric(12,2),
       body     text          NOT NULL,
       CONSTRAINT pk_result_templates PRIMARY KEY (part_day, digest)
     ) PARTITION BY RANGE (part_day)`);

    await q.query(`CREATE TABLE search_partner_calls (
       search_id    uuid        NOT NULL,
       partner_id   uuid        NOT NULL,
       part_day     date        NOT NULL,
       offer_ids    uuid[]      NOT NULL,
       status       text        NOT NULL,
       requested_at timestamptz NOT NULL DEFAULT now(),
       answered_at  timestamptz,
       latency_ms   integer,
       result_count integer,
       detail       text,
       CONSTRAINT pk_search_partner_calls PRIMARY KEY (search_id, partner_id, part_day),
       CONSTRAINT ck_search_partner_calls_status CHECK (status IN ('pending', 'answered', 'timeout', 'error', 'circuit_open', 'expired'))
     ) PARTITION BY RANGE (part_day)`);

    await q.query(`CREATE TABLE processed_messages (
       consumer     text        NOT NULL,
       message_id   text        NOT NULL,
       part_day     date        NOT NULL,
       message_type text        NOT NULL,
       processed_at timestamptz NOT NULL DEFAULT now(),
       CONSTRAINT pk_processed_messages PRIMARY KEY (consumer, message_id, part_day)
     ) PARTITION BY RANGE (part_day)`);

    await q.query(`CREATE FUNCTION lr_claim_message(p_consumer text, p_message_id text, p_type text) RETURNS boolean LANGUAGE plpgsql AS $$
      BEGIN
        -- One key, whatever day partition holds it: claims of one key wait for each other until the transaction ends.
        PERFORM pg_advisory_xact_lock(hashtextextended(p_consumer || chr(31) || p_message_id, 0));
        IF EXISTS (SELECT 1 FROM processed_messages WHERE consumer = p_consumer AND message_id = p_message_id) THEN
          RETURN false;
        END IF;
        INSERT INTO processed_messages (consumer, message_id, part_day, message_type)
        VALUES (p_consumer, p_message_id, (now() AT TIME ZONE 'UTC')::date, p_type);
        RETURN true;
      END $$`);

    await createDayPartitions(q, { from: KEPT_DAY, to: LEGACY_DAY, suffix: 'kept' });
    await createDayPartitions(q, { from: LEGACY_DAY, to: null, suffix: 'legacy' });
    const today = dayOf(new Date());
    for (let i = -1; i <= PARTITION_DAYS_AHEAD; i++)
      await createDayPartitions(q, { from: addDays(today, i), to: null, suffix: daySuffix(addDays(today, i)) });

    // The existing rows, in the legacy partitions: a result's template is its entry without its id and expiry, as stored.
    // Each result's template text and digest are computed once, then shared by the templates and the searches' arrays.
    await q.query(`CREATE TEMP TABLE upgrade_results ON COMMIT DROP AS
       SELECT r.id, r.search_id, r.offer_id, r.partner_data, COALESCE(r.expires_at, r.created_at) AS expires_at, r.created_at,
              array_position(s.result_order, r.id) AS pos,
              substr(encode(sha256(convert_to((r.entry - '{svc_result_id,expires_at}'::text[])::text, 'UTF8')), 'hex'), 1, 32)::uuid AS digest
         FROM results_unpartitioned r
         JOIN searches_unpartitioned s ON s.id = r.search_id`);
    // One result per template gives its text (a narrow sort of ids, then the text of those only).
    await q.query(`INSERT INTO result_templates (part_day, digest, offer_id, payout, body)
       SELECT DATE '${LEGACY_DAY}', u.digest, r.offer_id, (r.entry->>'payout')::numeric(12,2), (r.entry - '{svc_result_id,expires_at}'::text[])::text
         FROM (SELECT DISTINCT ON (digest) digest, id FROM upgrade_results ORDER BY digest, id) u
         JOIN results_unpartitioned r ON r.id = u.id`);
    await q.query(`INSERT INTO searches (id, part_day, affiliate_id, campaign_id, api_key_id, is_test, lead, tracking, consumer_ip, ip_source,
                                         tcpa_consent, form_cert_url, universal_lead_cert, created_at, closes_at, processing_done_at,
                                         accepted_count, true_exclusive_accepted, submitted_at, state_version, offer_decisions,
                                         result_order, result_templates, result_expires, result_partner, person_keys)
       SELECT s.id, DATE '${LEGACY_DAY}', s.affiliate_id, s.campaign_id, s.api_key_id, s.is_test, s.lead, s.tracking, s.consumer_ip, s.ip_source,
              s.tcpa_consent, s.form_cert_url, s.universal_lead_cert, s.created_at, s.closes_at, s.processing_done_at,
              s.accepted_count, s.true_exclusive_accepted, s.submitted_at, s.state_version, s.offer_decisions,
              COALESCE(r.ids, '{}'), COALESCE(r.templates, '{}'), COALESCE(r.expires, '{}'), r.partner, s.person_keys
         FROM searches_unpartitioned s
         LEFT JOIN (
           SELECT x.search_id,
                  array_agg(x.id ORDER BY x.pos NULLS LAST, x.created_at, x.id) AS ids,
                  array_agg(x.digest ORDER BY x.pos NULLS LAST, x.created_at, x.id) AS templates,
                  array_agg(x.expires_at ORDER BY x.pos NULLS LAST, x.created_at, x.id) AS expires,
                  jsonb_object_agg(x.id::text, x.partner_data) FILTER (WHERE x.partner_data IS NOT NULL) AS partner
             FROM upgrade_results x GROUP BY x.search_id) r ON r.search_id = s.id`);
    await q.query(`INSERT INTO search_partner_calls (search_id, partner_id, part_day, offer_ids, status, requested_at, answered_at, latency_ms, result_count, detail)
       SELECT search_id, partner_id, DATE '${LEGACY_DAY}', offer_ids, status, requested_at, answered_at, latency_ms, result_count, detail
         FROM search_partner_calls_unpartitioned`);
    await q.query(`INSERT INTO processed_messages (consumer, message_id, part_day, message_type, processed_at)
       SELECT consumer, message_id, DATE '${LEGACY_DAY}', message_type, processed_at FROM processed_messages_unpartitioned`);
    for (const t of ['search_partner_calls', 'results', 'searches', 'processed_messages']) await q.query(`DROP TABLE ${t}_unpartitioned`);

    await q.query(`CREATE VIEW results AS
       SELECT u.id, s.id AS search_id, t.offer_id, s.campaign_id,
              lr_result_entry(u.id, t.body, u.expires_at)::jsonb AS entry,
              s.result_partner -> u.id::text AS partner_data,
              u.expires_at, s.created_at, u.rank::int AS rank, s.part_day, t.payout, t.body
         FROM searches s
         CROSS JOIN LATERAL unnest(s.result_order, s.result_templates, s.result_expires) WITH ORDINALITY AS u(id, template, expires_at, rank)
         JOIN result_templates t ON t.part_day = s.part_day AND t.digest = u.template`);
  }

  async down(): Promise<void> {
    throw new Error(
      'BoundedSearchStorage1764800000000 cannot be undone: restore the backup taken before the upgrade (docs/runbooks/retention.md)',
    );
  }
}
