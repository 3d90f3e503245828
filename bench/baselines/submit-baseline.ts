import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { leadDedupeKeys, Lead } from '../../libs/domain/src';
import { postJsonAnswer } from '../../libs/http-client/src/post-json';
import { answerJson, inTransaction, serveBare } from './bare-server';
import { BENCH_KEY_SECRET } from '../support/bench-state';

/** The baseline's own tables: the rows a submit writes (lead, consent, cap use, sale, dedupe keys, delivery attempt). */
export const SUBMIT_BASELINE_SCHEMA = `
  CREATE TABLE IF NOT EXISTS bench_leads (id uuid PRIMARY KEY, search_id uuid NOT NULL, offer_id uuid NOT NULL, program_id text,
    answers jsonb NOT NULL, lead jsonb NOT NULL, status text NOT NULL, payout numeric(10,2), created_at timestamptz NOT NULL DEFAULT now(),
    decided_at timestamptz);
  CREATE TABLE IF NOT EXISTS bench_consent (lead_id uuid PRIMARY KEY, tcpa_consent boolean NOT NULL, statement text, button_label text,
    ip text NOT NULL, consented_at timestamptz NOT NULL);
  CREATE TABLE IF NOT EXISTS bench_cap_usage (offer_id uuid NOT NULL, period_start date NOT NULL, used int NOT NULL, PRIMARY KEY (offer_id, period_start));
  CREATE TABLE IF NOT EXISTS bench_sales (id uuid PRIMARY KEY, lead_id uuid NOT NULL UNIQUE, search_id uuid NOT NULL, offer_id uuid NOT NULL,
    status text NOT NULL, payout numeric(10,2), created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now());
  CREATE INDEX IF NOT EXISTS ix_bench_sales_search ON bench_sales (search_id, status);
  CREATE TABLE IF NOT EXISTS bench_dedupe_keys (offer_id uuid NOT NULL, key_type text NOT NULL, key_hash char(64) NOT NULL, lead_id uuid NOT NULL,
    accepted_at timestamptz NOT NULL DEFAULT now());
  CREATE INDEX IF NOT EXISTS ix_bench_dedupe ON bench_dedupe_keys (key_type, key_hash, offer_id);
  CREATE TABLE IF NOT EXISTS bench_attempts (lead_id uuid PRIMARY KEY, started_at timestamptz NOT NULL, finished_at timestamptz, outcome text, http_status int);
`;

const CAP_LIMIT = 1_000_000;

/** The submit body's envelope fields (as the gateway reads it); every other field is an answer to a question of the result. */
const ENVELOPE_KEYS = new Set([
  'svc_campaign_id',
  'svc_affiliate_id',
  'svc_result_id',
  'search_lead_id',
  'svc_offer_id',
  'svc_lead_id',
  'program_id',
  'tcpa_consent',
  'consent_button_label',
  'svc_is_test_lead',
  'lead',
  'tracking',
  'form_cert_url',
  'universal_lead_cert',
]);

/**
 * Baseline for submits: the PostgreSQL work and the school call a submit
 * needs, without the framework, the messaging and the rules (the bench never
 * sends a submit the rules would refuse). POST /submit, in order:
 * 1. one transaction: reads the result and its search's lead, locking the
 *    search row (the reservation's lock on the lead group); reads the facts
 *    a sale is decided on (the search's live sales, and the person's last
 *    sale of the offer from the dedupe index, by their keys); stores the
 *    lead (pending) and its consent evidence; takes a cap slot with a
 *    conditional upsert; books the sale and the person's dedupe keys; marks
 *    the search submitted;
 * 2. claims the delivery attempt, committed before the school is called (at
 *    most once);
 * 3. POSTs the lead to the same sandbox school, the lead id as Idempotency-Key;
 * 4. one transaction: the attempt's end, the lead's decision, the sale
 *    accepted, the search's counters;
 * and answers the same envelope. The answers are the body's fields outside
 * the envelope, as the gateway takes them. Statements are bound (extended
 * protocol), as a bare service would send them.
 * Env: PORT, DATABASE_URL, BENCH_SCHOOL_URL.
 */
function main(): void {
  // A transaction holds a connection for a few ms: 20 (the gateway's pool size) leaves room for stalls on a noisy host at 80/s.
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
  const schoolUrl = new URL(process.env.BENCH_SCHOOL_URL!);
  void pool.query(SUBMIT_BASELINE_SCHEMA).then(() =>
    serveBare(
      async (req, body, res) => {
        if (req.method !== 'POST' || req.url !== '/submit') return answerJson(res, 404, '{"code":"NOT_FOUND"}');
        const r = JSON.parse(body.toString('utf8')) as Record<string, unknown> & {
          search_lead_id: string;
          svc_result_id: string;
          program_id?: string;
          tcpa_consent?: boolean;
          consent_button_label?: string;
        };
        const answers = Object.fromEntries(Object.entries(r).filter(([k]) => !ENVELOPE_KEYS.has(k)));
        const leadId = randomUUID();
        const { lead, offerId, payout } = await inTransaction(pool, async (client) => {
          const found = await client.query(
            `SELECT t.offer_id, t.payout::float8 AS payout, (t.body::jsonb)->'offer'->>'tcpa_text' AS statement, s.lead, s.consumer_ip
               FROM searches s
               CROSS JOIN LATERAL unnest(s.result_order, s.result_templates) AS u(id, template)
               JOIN result_templates t ON t.part_day = s.part_day AND t.digest = u.template
              WHERE s.id = $1 AND s.part_day IN (lr_id_day($1), DATE '1970-01-01') AND u.id = $2 FOR UPDATE OF s`,
            [r.search_lead_id, r.svc_result_id],
          );
          if (found.rows.length === 0) throw new Error('result not found');
          const {
            offer_id: offerId,
            payout,
            lead,
            statement,
            consumer_ip: ip,
          } = found.rows[0] as {
            offer_id: string;
            payout: number | null;
            lead: Lead;
            statement: string | null;
            consumer_ip: string;
          };
          const keys = leadDedupeKeys(BENCH_KEY_SECRET, lead);
          const facts = await client.query(
            `SELECT (SELECT count(*) FROM bench_sales WHERE search_id = $1 AND status <> 'released') AS live_sales,
                    (SELECT max(d.accepted_at) FROM dedupe_keys d JOIN unnest($3::text[], $4::char(64)[]) AS k(t, h) ON d.key_type = k.t AND d.key_hash = k.h
                      WHERE d.offer_id = $2) AS last_sold_at`,
            [r.search_lead_id, offerId, keys.map((k) => k.type), keys.map((k) => k.hash)],
          );
          if (Number(facts.rows[0].live_sales) >= 3) throw new Error('sold too often');
          await client.query(
            `INSERT INTO bench_leads (id, search_id, offer_id, program_id, answers, lead, status) VALUES ($1, $2, $3, $4, $5, $6, 'pending')`,
            [leadId, r.search_lead_id, offerId, r.program_id ?? null, JSON.stringify(answers), JSON.stringify(lead)],
          );
          await client.query(
            `INSERT INTO bench_consent (lead_id, tcpa_consent, statement, button_label, ip, consented_at) VALUES ($1, $2, $3, $4, $5, now())`,
            [leadId, r.tcpa_consent === true, statement, r.consent_button_label ?? null, ip],
          );
          const slot = await client.query(
            `INSERT INTO bench_cap_usage (offer_id, period_start, used) VALUES ($1, current_date, 1)
             ON CONFLICT (offer_id, period_start) DO UPDATE SET used = bench_cap_usage.used + 1 WHERE bench_cap_usage.used < $2
             RETURNING used`,
            [offerId, CAP_LIMIT],
          );
          if (slot.rows.length === 0) throw new Error('cap reached');
          await client.query(
            `INSERT INTO bench_sales (id, lead_id, search_id, offer_id, status, payout) VALUES ($1, $2, $3, $4, 'reserved', $5)`,
            [randomUUID(), leadId, r.search_lead_id, offerId, payout],
          );
          await client.query(
            `INSERT INTO bench_dedupe_keys (offer_id, key_type, key_hash, lead_id) SELECT $1, k.t, k.h, $2 FROM unnest($3::text[], $4::char(64)[]) AS k(t, h)`,
            [offerId, leadId, keys.map((k) => k.type), keys.map((k) => k.hash)],
          );
          await client.query(`UPDATE searches SET submitted_at = now() WHERE id = $1 AND submitted_at IS NULL`, [r.search_lead_id]);
          return { lead, offerId, payout };
        });
        await pool.query(`INSERT INTO bench_attempts (lead_id, started_at) VALUES ($1, now())`, [leadId]);
        const answer = await postJsonAnswer(
          schoolUrl,
          { lead_id: leadId, offer_id: offerId, program_id: r.program_id, answers, lead },
          { headers: { 'Idempotency-Key': leadId }, signal: AbortSignal.timeout(5000), maxBytes: 65536 },
        );
        const accepted = answer.status === 200 && (JSON.parse(answer.text) as { result?: string }).result === 'accepted';
        await inTransaction(pool, async (client) => {
          await client.query(`UPDATE bench_attempts SET finished_at = now(), outcome = $2, http_status = $3 WHERE lead_id = $1`, [
            leadId,
            accepted ? 'accepted' : 'rejected',
            answer.status,
          ]);
          await client.query(`UPDATE bench_leads SET status = $2, payout = $3, decided_at = now() WHERE id = $1`, [
            leadId,
            accepted ? 'accepted' : 'rejected',
            accepted ? payout : 0,
          ]);
          await client.query(`UPDATE bench_sales SET status = $2, updated_at = now() WHERE lead_id = $1`, [
            leadId,
            accepted ? 'accepted' : 'released',
          ]);
          if (accepted)
            await client.query(`UPDATE searches SET accepted_count = accepted_count + 1, state_version = state_version + 1 WHERE id = $1`, [
              r.search_lead_id,
            ]);
        });
        answerJson(
          res,
          200,
          JSON.stringify({
            code: accepted ? 'ACCEPTED' : 'BUYER_REJECTED',
            status: accepted ? 'accepted' : 'rejected',
            reason: accepted ? 'Lead accepted' : 'Rejected - Client',
            success: accepted,
            svc_lead_id: leadId,
            ...(accepted && payout !== null ? { payout } : {}),
          }),
        );
      },
      () => pool.end(),
    ),
  );
}

if (require.main === module) main();
