import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { leadDedupeKeys, Lead } from '../../libs/domain/src';
import { postJsonAnswer } from '../../libs/platform/src/http/post-json';
import { answerJson, inTransaction, serveBare } from './bare-server';

/** The baseline's own tables: the shapes a submit writes (lead, cap use, sale, dedupe keys). */
export const SUBMIT_BASELINE_SCHEMA = `
  CREATE TABLE IF NOT EXISTS bench_leads (id uuid PRIMARY KEY, search_id uuid NOT NULL, offer_id uuid NOT NULL, program_id text,
    answers jsonb NOT NULL, lead jsonb NOT NULL, status text NOT NULL, payout numeric(10,2), created_at timestamptz NOT NULL DEFAULT now());
  CREATE TABLE IF NOT EXISTS bench_cap_usage (offer_id uuid NOT NULL, period_start date NOT NULL, used int NOT NULL, PRIMARY KEY (offer_id, period_start));
  CREATE TABLE IF NOT EXISTS bench_sales (id uuid PRIMARY KEY, lead_id uuid NOT NULL UNIQUE, search_id uuid NOT NULL, offer_id uuid NOT NULL,
    status text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
  CREATE TABLE IF NOT EXISTS bench_dedupe_keys (offer_id uuid NOT NULL, key_type text NOT NULL, key_hash char(64) NOT NULL, lead_id uuid NOT NULL,
    accepted_at timestamptz NOT NULL DEFAULT now());
  CREATE INDEX IF NOT EXISTS ix_bench_dedupe ON bench_dedupe_keys (key_type, key_hash, offer_id);
`;

const CAP_LIMIT = 1_000_000;

/** The submit body's envelope fields (as the gateway reads it); every other field is an answer to a question of the result. */
const ENVELOPE_KEYS = new Set([
  'svc_campaign_id', 'svc_affiliate_id', 'svc_result_id', 'search_lead_id', 'svc_offer_id', 'svc_lead_id', 'program_id',
  'tcpa_consent', 'consent_button_label', 'svc_is_test_lead', 'lead', 'tracking', 'form_cert_url', 'universal_lead_cert',
]);

/**
 * Baseline for submits: the storage and delivery work of a submit without the
 * framework, the messaging and the rules. POST /submit reads the result and
 * its search's lead (locking the search row, as the sale reservation does);
 * in one transaction stores the lead, takes a cap slot with a conditional
 * upsert, books the sale and writes the person's dedupe keys; POSTs the lead
 * to the same sandbox school with the lead id as Idempotency-Key; stores the
 * decision; answers the same envelope. The answers are the body's fields
 * outside the envelope, as the gateway takes them.
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
        const r = JSON.parse(body.toString('utf8')) as Record<string, unknown> & { search_lead_id: string; svc_result_id: string; program_id?: string };
        const answers = Object.fromEntries(Object.entries(r).filter(([k]) => !ENVELOPE_KEYS.has(k)));
        const leadId = randomUUID();
        const { lead, offerId, payout } = await inTransaction(pool, async (client) => {
          const found = await client.query(
            `SELECT r.offer_id, (r.entry->>'payout')::numeric::float8 AS payout, s.lead
               FROM searches s JOIN results r ON r.search_id = s.id
              WHERE s.id = $1 AND r.id = $2 FOR UPDATE OF s`,
            [r.search_lead_id, r.svc_result_id],
          );
          if (found.rows.length === 0) throw new Error('result not found');
          const { offer_id: offerId, payout, lead } = found.rows[0] as { offer_id: string; payout: number | null; lead: Lead };
          await client.query(
            `INSERT INTO bench_leads (id, search_id, offer_id, program_id, answers, lead, status) VALUES ($1, $2, $3, $4, $5, $6, 'pending')`,
            [leadId, r.search_lead_id, offerId, r.program_id ?? null, JSON.stringify(answers), JSON.stringify(lead)],
          );
          const slot = await client.query(
            `INSERT INTO bench_cap_usage (offer_id, period_start, used) VALUES ($1, current_date, 1)
             ON CONFLICT (offer_id, period_start) DO UPDATE SET used = bench_cap_usage.used + 1 WHERE bench_cap_usage.used < $2
             RETURNING used`,
            [offerId, CAP_LIMIT],
          );
          if (slot.rows.length === 0) throw new Error('cap reached');
          await client.query(`INSERT INTO bench_sales (id, lead_id, search_id, offer_id, status) VALUES ($1, $2, $3, $4, 'reserved')`, [
            randomUUID(), leadId, r.search_lead_id, offerId,
          ]);
          const keys = leadDedupeKeys(lead);
          await client.query(
            `INSERT INTO bench_dedupe_keys (offer_id, key_type, key_hash, lead_id) SELECT $1, k.t, k.h, $2 FROM unnest($3::text[], $4::char(64)[]) AS k(t, h)`,
            [offerId, leadId, keys.map((k) => k.type), keys.map((k) => k.hash)],
          );
          return { lead, offerId, payout };
        });
        const answer = await postJsonAnswer(
          schoolUrl,
          { lead_id: leadId, offer_id: offerId, program_id: r.program_id, answers, lead },
          { headers: { 'Idempotency-Key': leadId }, signal: AbortSignal.timeout(5000), maxBytes: 65536 },
        );
        const accepted = answer.status === 200 && (JSON.parse(answer.text) as { result?: string }).result === 'accepted';
        await pool.query(`UPDATE bench_leads SET status = $2, payout = $3 WHERE id = $1`, [leadId, accepted ? 'accepted' : 'rejected', accepted ? payout : 0]);
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
