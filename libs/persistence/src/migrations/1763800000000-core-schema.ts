import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The system of record (ARCHITECTURE.md, Data): the catalog (affiliates,
 * schools, partners, offers with programs, questions and caps, campaigns),
 * API keys, searches and their results, every submit as a lead with its
 * consent evidence and delivery attempts, the sales ledger, cap usage and the
 * dedupe index. Enumerations are CHECK constraints so a bad value cannot be
 * stored by any process. The repositories' statements are typed from this
 * schema as PostgreSQL describes it (queries/row-types.generated.ts).
 */
export class CoreSchema1763800000000 implements MigrationInterface {
  name = 'CoreSchema1763800000000';

  async up(q: QueryRunner): Promise<void> {
    for (const statement of UP) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ${DROP_ORDER.join(', ')}`);
  }
}

const DROP_ORDER = [
  'delivery_attempts',
  'dedupe_keys',
  'cap_usage',
  'sales',
  'consent_evidence',
  'leads',
  'results',
  'searches',
  'api_keys',
  'caps',
  'campaign_offers',
  'campaigns',
  'questions',
  'programs',
  'offers',
  'partners',
  'schools',
  'affiliates',
];

const UP = [
  // ---- catalog ----
  `CREATE TABLE affiliates (
     id          uuid        PRIMARY KEY,
     name        text        NOT NULL,
     status      text        NOT NULL,
     dupe_check  boolean     NOT NULL DEFAULT false,
     created_at  timestamptz NOT NULL DEFAULT now(),
     updated_at  timestamptz NOT NULL DEFAULT now(),
     CONSTRAINT ck_affiliates_status CHECK (status IN ('active', 'paused'))
   )`,
  `CREATE TABLE schools (
     id          uuid        PRIMARY KEY,
     name        text        NOT NULL,
     logo_url    text,
     created_at  timestamptz NOT NULL DEFAULT now(),
     updated_at  timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE TABLE partners (
     id          uuid        PRIMARY KEY,
     name        text        NOT NULL,
     adapter     text        NOT NULL,
     base_url    text        NOT NULL,
     timeout_ms  integer     NOT NULL DEFAULT 10000,
     created_at  timestamptz NOT NULL DEFAULT now(),
     updated_at  timestamptz NOT NULL DEFAULT now(),
     CONSTRAINT ck_partners_timeout_ms CHECK (timeout_ms > 0)
   )`,
  `CREATE TABLE offers (
     id                    uuid          PRIMARY KEY,
     name                  text          NOT NULL,
     school_id             uuid          NOT NULL,
     source                text          NOT NULL,
     partner_id            uuid,
     external_id           text,
     offer_type            text          NOT NULL,
     status                text          NOT NULL,
     priority              integer       NOT NULL DEFAULT 0,
     price                 numeric(12,2),
     tcpa_text             text,
     result_ttl_seconds    integer       NOT NULL DEFAULT 900,
     duplicate_window_days integer       NOT NULL DEFAULT 30,
     eligibility           jsonb         NOT NULL DEFAULT '{}',
     delivery              jsonb,
     created_at            timestamptz   NOT NULL DEFAULT now(),
     updated_at            timestamptz   NOT NULL DEFAULT now(),
     CONSTRAINT fk_offers_school FOREIGN KEY (school_id) REFERENCES schools (id),
     CONSTRAINT fk_offers_partner FOREIGN KEY (partner_id) REFERENCES partners (id),
     CONSTRAINT ck_offers_source CHECK (source IN ('own', 'partner')),
     CONSTRAINT ck_offers_offer_type CHECK (offer_type IN ('shared', 'exclusive', 'true_exclusive')),
     CONSTRAINT ck_offers_status CHECK (status IN ('active', 'paused')),
     CONSTRAINT ck_offers_source_shape CHECK (
          (source = 'own' AND partner_id IS NULL AND delivery IS NOT NULL)
       OR (source = 'partner' AND partner_id IS NOT NULL AND external_id IS NOT NULL AND delivery IS NULL AND price IS NULL)),
     CONSTRAINT ck_offers_price CHECK (price >= 0),
     CONSTRAINT ck_offers_result_ttl_seconds CHECK (result_ttl_seconds > 0),
     CONSTRAINT ck_offers_duplicate_window_days CHECK (duplicate_window_days >= 0)
   )`,
  `CREATE INDEX ix_offers_school_id ON offers (school_id)`,
  `CREATE UNIQUE INDEX ux_offers_partner_external_id ON offers (partner_id, external_id) WHERE source = 'partner'`,
  `CREATE TABLE programs (
     offer_id    uuid        NOT NULL,
     value       text        NOT NULL,
     label       text        NOT NULL,
     eligibility jsonb       NOT NULL DEFAULT '{}',
     position    integer     NOT NULL,
     created_at  timestamptz NOT NULL DEFAULT now(),
     updated_at  timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (offer_id, value),
     CONSTRAINT fk_programs_offer FOREIGN KEY (offer_id) REFERENCES offers (id) ON DELETE CASCADE
   )`,
  `CREATE TABLE questions (
     offer_id      uuid        NOT NULL,
     name          text        NOT NULL,
     label         text,
     type          text        NOT NULL,
     required      boolean     NOT NULL,
     required_when jsonb,
     options       jsonb,
     position      integer     NOT NULL,
     created_at    timestamptz NOT NULL DEFAULT now(),
     updated_at    timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (offer_id, name),
     CONSTRAINT fk_questions_offer FOREIGN KEY (offer_id) REFERENCES offers (id) ON DELETE CASCADE,
     CONSTRAINT ck_questions_type CHECK (type IN ('select', 'text', 'number')),
     CONSTRAINT ck_questions_select_options CHECK ((type = 'select') = (options IS NOT NULL))
   )`,
  `CREATE TABLE campaigns (
     id           uuid        PRIMARY KEY,
     affiliate_id uuid        NOT NULL,
     name         text        NOT NULL,
     status       text        NOT NULL,
     created_at   timestamptz NOT NULL DEFAULT now(),
     updated_at   timestamptz NOT NULL DEFAULT now(),
     CONSTRAINT fk_campaigns_affiliate FOREIGN KEY (affiliate_id) REFERENCES affiliates (id),
     CONSTRAINT ck_campaigns_status CHECK (status IN ('active', 'paused'))
   )`,
  `CREATE INDEX ix_campaigns_affiliate_id ON campaigns (affiliate_id)`,
  `CREATE TABLE campaign_offers (
     campaign_id     uuid          NOT NULL,
     offer_id        uuid          NOT NULL,
     payout          numeric(12,2),
     program_payouts jsonb,
     position        integer       NOT NULL,
     created_at      timestamptz   NOT NULL DEFAULT now(),
     updated_at      timestamptz   NOT NULL DEFAULT now(),
     PRIMARY KEY (campaign_id, offer_id),
     CONSTRAINT fk_campaign_offers_campaign FOREIGN KEY (campaign_id) REFERENCES campaigns (id) ON DELETE CASCADE,
     CONSTRAINT fk_campaign_offers_offer FOREIGN KEY (offer_id) REFERENCES offers (id) ON DELETE CASCADE,
     CONSTRAINT ck_campaign_offers_payout CHECK (payout >= 0)
   )`,
  `CREATE INDEX ix_campaign_offers_offer_id ON campaign_offers (offer_id)`,
  `CREATE TABLE caps (
     id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
     offer_id    uuid        NOT NULL,
     campaign_id uuid,
     period      text        NOT NULL,
     "limit"     integer     NOT NULL,
     timezone    text        NOT NULL DEFAULT 'America/New_York',
     created_at  timestamptz NOT NULL DEFAULT now(),
     updated_at  timestamptz NOT NULL DEFAULT now(),
     CONSTRAINT fk_caps_offer FOREIGN KEY (offer_id) REFERENCES offers (id) ON DELETE CASCADE,
     CONSTRAINT fk_caps_campaign_offer FOREIGN KEY (campaign_id, offer_id)
       REFERENCES campaign_offers (campaign_id, offer_id) ON DELETE CASCADE,
     CONSTRAINT ck_caps_period CHECK (period IN ('hour', 'day', 'week', 'month', 'total')),
     CONSTRAINT ck_caps_limit CHECK ("limit" >= 0)
   )`,
  `CREATE UNIQUE INDEX ux_caps_offer_period ON caps (offer_id, period) WHERE campaign_id IS NULL`,
  `CREATE UNIQUE INDEX ux_caps_campaign_offer_period ON caps (campaign_id, offer_id, period) WHERE campaign_id IS NOT NULL`,

  // ---- access ----
  `CREATE TABLE api_keys (
     id           uuid        PRIMARY KEY,
     affiliate_id uuid        NOT NULL,
     key_hash     text        NOT NULL,
     key_prefix   text        NOT NULL,
     created_at   timestamptz NOT NULL DEFAULT now(),
     expires_at   timestamptz,
     revoked_at   timestamptz,
     limits       jsonb       NOT NULL DEFAULT '{}',
     CONSTRAINT fk_api_keys_affiliate FOREIGN KEY (affiliate_id) REFERENCES affiliates (id),
     CONSTRAINT ck_api_keys_key_hash CHECK (key_hash ~ '^[0-9a-f]{64}$')
   )`,
  `CREATE UNIQUE INDEX ux_api_keys_key_hash ON api_keys (key_hash)`,
  `CREATE INDEX ix_api_keys_affiliate_id ON api_keys (affiliate_id)`,

  // ---- searches, results, leads ----
  `CREATE TABLE searches (
     id                      uuid        PRIMARY KEY,
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
     CONSTRAINT fk_searches_affiliate FOREIGN KEY (affiliate_id) REFERENCES affiliates (id),
     CONSTRAINT fk_searches_campaign FOREIGN KEY (campaign_id) REFERENCES campaigns (id),
     CONSTRAINT fk_searches_api_key FOREIGN KEY (api_key_id) REFERENCES api_keys (id),
     CONSTRAINT ck_searches_ip_source CHECK (ip_source IN ('consumer', 'caller_server')),
     CONSTRAINT ck_searches_accepted_count CHECK (accepted_count >= 0)
   )`,
  `CREATE INDEX ix_searches_affiliate_created ON searches (affiliate_id, created_at)`,
  `CREATE INDEX ix_searches_campaign_id ON searches (campaign_id)`,
  `CREATE TABLE results (
     id           uuid        PRIMARY KEY,
     search_id    uuid        NOT NULL,
     offer_id     uuid        NOT NULL,
     campaign_id  uuid        NOT NULL,
     rank         integer     NOT NULL,
     entry        jsonb       NOT NULL,
     partner_data jsonb,
     expires_at   timestamptz,
     created_at   timestamptz NOT NULL DEFAULT now(),
     CONSTRAINT fk_results_search FOREIGN KEY (search_id) REFERENCES searches (id),
     CONSTRAINT fk_results_offer FOREIGN KEY (offer_id) REFERENCES offers (id),
     CONSTRAINT fk_results_campaign FOREIGN KEY (campaign_id) REFERENCES campaigns (id)
   )`,
  `CREATE UNIQUE INDEX ux_results_search_offer ON results (search_id, offer_id)`,
  `CREATE INDEX ix_results_search_rank ON results (search_id, rank)`,
  `CREATE TABLE leads (
     id           uuid          PRIMARY KEY,
     search_id    uuid,
     result_id    uuid,
     kind         text          NOT NULL,
     affiliate_id uuid          NOT NULL,
     campaign_id  uuid          NOT NULL,
     offer_id     uuid          NOT NULL,
     api_key_id   uuid          NOT NULL,
     program_id   text,
     answers      jsonb         NOT NULL DEFAULT '{}',
     lead         jsonb         NOT NULL,
     tracking     jsonb         NOT NULL DEFAULT '{}',
     consumer_ip  text          NOT NULL,
     ip_source    text          NOT NULL DEFAULT 'consumer',
     is_test      boolean       NOT NULL DEFAULT false,
     status       text          NOT NULL,
     code         text,
     reason       text,
     payout       numeric(12,2),
     created_at   timestamptz   NOT NULL DEFAULT now(),
     decided_at   timestamptz,
     CONSTRAINT fk_leads_search FOREIGN KEY (search_id) REFERENCES searches (id),
     CONSTRAINT fk_leads_result FOREIGN KEY (result_id) REFERENCES results (id),
     CONSTRAINT fk_leads_affiliate FOREIGN KEY (affiliate_id) REFERENCES affiliates (id),
     CONSTRAINT fk_leads_campaign FOREIGN KEY (campaign_id) REFERENCES campaigns (id),
     CONSTRAINT fk_leads_offer FOREIGN KEY (offer_id) REFERENCES offers (id),
     CONSTRAINT fk_leads_api_key FOREIGN KEY (api_key_id) REFERENCES api_keys (id),
     CONSTRAINT ck_leads_kind CHECK (kind IN ('result_submit', 'direct_post')),
     CONSTRAINT ck_leads_kind_links CHECK (
          (kind = 'result_submit' AND search_id IS NOT NULL AND result_id IS NOT NULL)
       OR (kind = 'direct_post' AND result_id IS NULL)),
     CONSTRAINT ck_leads_status CHECK (status IN ('accepted', 'saved', 'pending', 'held', 'rejected', 'invalid', 'failed')),
     CONSTRAINT ck_leads_ip_source CHECK (ip_source IN ('consumer', 'caller_server')),
     CONSTRAINT ck_leads_payout CHECK (payout >= 0)
   )`,
  `CREATE INDEX ix_leads_search_id ON leads (search_id)`,
  `CREATE INDEX ix_leads_result_id ON leads (result_id)`,
  `CREATE INDEX ix_leads_affiliate_created ON leads (affiliate_id, created_at)`,
  `CREATE INDEX ix_leads_offer_id ON leads (offer_id)`,
  `CREATE TABLE consent_evidence (
     lead_id             uuid        PRIMARY KEY,
     tcpa_consent        boolean     NOT NULL,
     tcpa_text           text,
     button_label        text,
     ip                  text        NOT NULL,
     consented_at        timestamptz NOT NULL,
     form_cert_url       text,
     universal_lead_cert text,
     created_at          timestamptz NOT NULL DEFAULT now(),
     CONSTRAINT fk_consent_evidence_lead FOREIGN KEY (lead_id) REFERENCES leads (id)
   )`,

  // ---- sales ledger, caps, dedupe, delivery ----
  `CREATE TABLE sales (
     id           uuid          PRIMARY KEY DEFAULT gen_random_uuid(),
     lead_id      uuid          NOT NULL,
     search_id    uuid,
     offer_id     uuid          NOT NULL,
     school_id    uuid          NOT NULL,
     campaign_id  uuid          NOT NULL,
     affiliate_id uuid          NOT NULL,
     offer_type   text          NOT NULL,
     payout       numeric(12,2),
     price        numeric(12,2),
     status       text          NOT NULL,
     created_at   timestamptz   NOT NULL DEFAULT now(),
     updated_at   timestamptz   NOT NULL DEFAULT now(),
     CONSTRAINT fk_sales_lead FOREIGN KEY (lead_id) REFERENCES leads (id),
     CONSTRAINT fk_sales_search FOREIGN KEY (search_id) REFERENCES searches (id),
     CONSTRAINT fk_sales_offer FOREIGN KEY (offer_id) REFERENCES offers (id),
     CONSTRAINT fk_sales_school FOREIGN KEY (school_id) REFERENCES schools (id),
     CONSTRAINT fk_sales_campaign FOREIGN KEY (campaign_id) REFERENCES campaigns (id),
     CONSTRAINT fk_sales_affiliate FOREIGN KEY (affiliate_id) REFERENCES affiliates (id),
     CONSTRAINT ck_sales_status CHECK (status IN ('reserved', 'accepted', 'released')),
     CONSTRAINT ck_sales_offer_type CHECK (offer_type IN ('shared', 'exclusive', 'true_exclusive')),
     CONSTRAINT ck_sales_amounts CHECK (payout >= 0 AND price >= 0)
   )`,
  `CREATE UNIQUE INDEX ux_sales_lead_id ON sales (lead_id)`,
  `CREATE UNIQUE INDEX ux_sales_live_search_offer ON sales (search_id, offer_id) WHERE status <> 'released'`,
  `CREATE INDEX ix_sales_search_status ON sales (search_id, status)`,
  `CREATE INDEX ix_sales_school_created ON sales (school_id, created_at)`,
  `CREATE INDEX ix_sales_affiliate_created ON sales (affiliate_id, created_at)`,
  `CREATE TABLE cap_usage (
     scope        text        NOT NULL,
     period       text        NOT NULL,
     period_start timestamptz NOT NULL,
     used         integer     NOT NULL DEFAULT 0,
     updated_at   timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (scope, period, period_start),
     CONSTRAINT ck_cap_usage_period CHECK (period IN ('hour', 'day', 'week', 'month', 'total')),
     CONSTRAINT ck_cap_usage_used CHECK (used >= 0)
   )`,
  `CREATE TABLE dedupe_keys (
     lead_id      uuid        NOT NULL,
     key_type     text        NOT NULL,
     key_hash     char(64)    NOT NULL,
     offer_id     uuid        NOT NULL,
     school_id    uuid        NOT NULL,
     affiliate_id uuid        NOT NULL,
     accepted_at  timestamptz NOT NULL,
     PRIMARY KEY (lead_id, key_type),
     CONSTRAINT fk_dedupe_keys_lead FOREIGN KEY (lead_id) REFERENCES leads (id),
     CONSTRAINT fk_dedupe_keys_offer FOREIGN KEY (offer_id) REFERENCES offers (id),
     CONSTRAINT fk_dedupe_keys_school FOREIGN KEY (school_id) REFERENCES schools (id),
     CONSTRAINT fk_dedupe_keys_affiliate FOREIGN KEY (affiliate_id) REFERENCES affiliates (id),
     CONSTRAINT ck_dedupe_keys_key_hash CHECK (key_hash ~ '^[0-9a-f]{64}$')
   )`,
  `CREATE INDEX ix_dedupe_keys_offer ON dedupe_keys (key_type, key_hash, offer_id)`,
  `CREATE INDEX ix_dedupe_keys_accepted ON dedupe_keys (key_type, key_hash, accepted_at)`,
  `CREATE TABLE delivery_attempts (
     lead_id     uuid        NOT NULL,
     attempt     integer     NOT NULL,
     started_at  timestamptz NOT NULL,
     finished_at timestamptz,
     outcome     text,
     http_status integer,
     latency_ms  integer,
     detail      text,
     PRIMARY KEY (lead_id, attempt),
     CONSTRAINT fk_delivery_attempts_lead FOREIGN KEY (lead_id) REFERENCES leads (id),
     CONSTRAINT ck_delivery_attempts_attempt CHECK (attempt >= 1)
   )`,
];
