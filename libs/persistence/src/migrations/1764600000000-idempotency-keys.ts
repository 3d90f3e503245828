import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Affiliates' idempotency keys (docs/idempotency.md): one row per
 * (affiliate, endpoint, key) for 24 hours, naming the request by its body's
 * digest and the `svc_lead_id` it was given. `owner` and `lease_until` say which
 * gateway request is running it and until when; `answer_status` and `answer`
 * hold its final answer once given (a search's is read again from the search).
 */
export class IdempotencyKeys1764600000000 implements MigrationInterface {
  name = 'IdempotencyKeys1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE idempotency_keys (
        affiliate_id  uuid        NOT NULL,
        endpoint      text        NOT NULL CONSTRAINT ck_idempotency_keys_endpoint CHECK (endpoint IN ('search', 'leads')),
        idem_key      text        NOT NULL,
        body_digest   text        NOT NULL,
        lead_id       uuid        NOT NULL,
        owner         uuid        NOT NULL,
        lease_until   timestamptz NOT NULL,
        answer_status smallint,
        answer        jsonb,
        created_at    timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (affiliate_id, endpoint, idem_key)
      )`);
    await q.query('CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE idempotency_keys');
  }
}
