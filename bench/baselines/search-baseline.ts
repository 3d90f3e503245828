import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Redis from 'ioredis';
import { Pool } from 'pg';
import type { PartnerRef, ResultEntry, SearchMeta } from '../../libs/contracts/src';
import type { PartnerSearchCall } from '../../apps/partner-adapter/src/adapters/partner-adapter';
import { SandboxPartnerAdapter } from '../../apps/partner-adapter/src/adapters/sandbox/sandbox-adapter';
import { SEARCH_STATE_TTL_SECONDS } from '../../libs/search-state/src/search-state';
import { searchAnswerBody } from '../../libs/search-state/src/search-answer';
import { SearchStateStore } from '../../libs/search-state/src/search-state-store';
import { newLeadId } from '../../libs/domain/src/ids/lead-ids';
import { entryText, newResult } from '../../libs/persistence/src/queries/stored-result';
import { answerJson, serveBare } from './bare-server';

/** The baseline's own tables: the shapes of `searches` and `result_templates` that a search writes (docs/storage.md). */
export const SEARCH_BASELINE_SCHEMA = `
  CREATE TABLE IF NOT EXISTS bench_searches (id uuid PRIMARY KEY, lead jsonb NOT NULL, tracking jsonb NOT NULL, created_at timestamptz NOT NULL,
                                             result_order uuid[] NOT NULL, result_templates uuid[] NOT NULL, result_expires timestamptz[] NOT NULL);
  CREATE TABLE IF NOT EXISTS bench_templates (digest uuid PRIMARY KEY, body text NOT NULL);
  ALTER TABLE bench_searches ADD COLUMN IF NOT EXISTS partner_data jsonb;
`;

/** One partner network of the partner round (BENCH_PARTNER_CALLS): the partner as the orchestrator asks it, and its offers. */
export interface BaselinePartnerCall {
  partner: PartnerRef;
  offers: Array<{ offerId: string; externalId: string; name: string; payout: number }>;
}

/**
 * Baseline for searches: the storage work of a search without the framework,
 * the messaging and the checks. POST /search parses the JSON body; one
 * statement inserts the search row with its results as the system stores
 * them (ids, templates and expiries in the row; the templates, copies of the
 * result entries a real search answered, stored once at start as a running
 * system has them); the state is written to Redis; the answer is the same
 * envelope with those entries. Each entry's text is made once from its
 * template and reused for Redis and the answer, as the search-orchestrator
 * does.
 * With BENCH_PARTNER_CALLS (a JSON array of BaselinePartnerCall), it also
 * makes a search's partner round after answering, as the floor of that work:
 * each partner asked at once through partner-adapter's own sandbox adapter
 * (the same request and answer parsing), and
 * when every one answered, one statement appends their results (ids,
 * templates, expiries and partner data) to the search's row and one Redis
 * write adds their entries to the state. No checks, ranking or messaging.
 * `GET /pending` answers how many partner rounds are still running.
 * Env: PORT, DATABASE_URL, REDIS_URL, REDIS_KEY_PREFIX, BENCH_ENTRIES_FILE
 * (a JSON array of result entries), BENCH_PARTNER_CALLS.
 */
function main(): void {
  const template = JSON.parse(readFileSync(process.env.BENCH_ENTRIES_FILE!, 'utf8')) as ResultEntry[];
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const redis = new Redis(process.env.REDIS_URL!, { keyPrefix: process.env.REDIS_KEY_PREFIX });
  const store = new SearchStateStore(redis);
  const templates = template.map(
    (e) => newResult({ resultId: e.svc_result_id, entry: e, expiresAt: new Date(), partnerData: null }).template,
  );
  const ready = pool
    .query(SEARCH_BASELINE_SCHEMA)
    .then(() =>
      pool.query(
        `INSERT INTO bench_templates (digest, body) SELECT x.digest, x.body FROM jsonb_to_recordset($1::jsonb) AS x(digest uuid, body text) ON CONFLICT DO NOTHING`,
        [JSON.stringify(templates.map((t) => ({ digest: t.digest, body: t.body })))],
      ),
    );
  const partnerCalls = JSON.parse(process.env.BENCH_PARTNER_CALLS ?? '[]') as BaselinePartnerCall[];
  const adapter = new SandboxPartnerAdapter();
  // Partner rounds running, and those that failed (GET /pending answers both).
  let pending = 0;
  let failures = 0;

  /** The partner round of a search answered with `meta` (see above). */
  async function partnerRound(meta: SearchMeta, lead: unknown, tracking: Record<string, string>): Promise<void> {
    const answered = await Promise.all(
      partnerCalls.map(async (call) => {
        const request = { searchId: meta.searchId, offers: call.offers, lead: lead as PartnerSearchCall['lead'], tracking, isTest: false };
        const results = await adapter.search(call.partner, request, AbortSignal.timeout(call.partner.timeoutMs));
        return results.map((r) => ({ call, r, offer: call.offers.find((o) => o.offerId === r.offerId)! }));
      }),
    );
    const now = new Date();
    const added = answered.flat().map(({ call, r, offer }) => {
      const expiresAt = new Date(now.getTime() + Math.min(900, r.expiresInSeconds ?? 900) * 1000);
      const entry: ResultEntry = {
        svc_result_id: randomUUID(),
        campaign_id: meta.campaignId,
        offer: { id: offer.offerId, name: offer.name, offer_type: 'shared', is_exclusive: false, tcpa_text: r.tcpaText },
        school: { name: r.school?.name ?? offer.name, logo_url: null },
        programs: r.programs.map((p) => ({ value: p.value, label: p.label, payout: offer.payout })),
        payout: offer.payout,
        form_fields: r.formFields,
        expires_at: null,
      };
      return newResult({
        resultId: entry.svc_result_id,
        entry,
        expiresAt,
        partnerData: { partnerId: call.partner.id, partnerResultId: r.partnerResultId, externalId: r.externalId },
      });
    });
    await pool.query(
      `WITH t AS (INSERT INTO bench_templates (digest, body) SELECT x.digest, x.body FROM jsonb_to_recordset($5::jsonb) AS x(digest uuid, body text) ON CONFLICT DO NOTHING)
       UPDATE bench_searches SET result_order = result_order || $2::uuid[], result_templates = result_templates || $3::uuid[],
              result_expires = result_expires || $4::timestamptz[], partner_data = coalesce(partner_data, '{}'::jsonb) || $6::jsonb
        WHERE id = $1`,
      [
        meta.searchId,
        added.map((r) => r.id),
        added.map((r) => r.template.digest),
        added.map((r) => r.expiresAt),
        JSON.stringify(added.map((r) => ({ digest: r.template.digest, body: r.template.body }))),
        JSON.stringify(Object.fromEntries(added.map((r) => [r.id, r.partnerData]))),
      ],
    );
    const next: SearchMeta = {
      ...meta,
      version: meta.version + 1,
      processingDone: true,
      order: [...meta.order, ...added.map((r) => r.id)],
    };
    await store.write(
      next,
      added.map((r) => ({ id: r.id, json: r.entryJson })),
      SEARCH_STATE_TTL_SECONDS,
    );
  }

  void ready.then(() =>
    serveBare(
      async (req, body, res) => {
        if (req.method === 'GET' && req.url === '/pending') return answerJson(res, 200, JSON.stringify({ pending, failures }));
        if (req.method !== 'POST' || req.url !== '/search') return answerJson(res, 404, '{"code":"NOT_FOUND"}');
        const request = JSON.parse(body.toString('utf8')) as {
          svc_campaign_id: string;
          svc_affiliate_id: string;
          lead: unknown;
          tracking: unknown;
        };
        const searchId = newLeadId();
        const now = new Date();
        const expiresAt = new Date(now.getTime() + 900_000);
        const offers = templates.map((t) => ({ svc_result_id: randomUUID(), template: t }));
        const entries = offers.map((o) => Buffer.from(entryText(o.svc_result_id, o.template.body, expiresAt)));
        await pool.query(
          `INSERT INTO bench_searches (id, lead, tracking, created_at, result_order, result_templates, result_expires)
         VALUES ($1, $2, $3, $4, $5::uuid[], $6::uuid[], $7::timestamptz[])`,
          [
            searchId,
            JSON.stringify(request.lead),
            JSON.stringify(request.tracking),
            now,
            offers.map((o) => o.svc_result_id),
            offers.map((o) => o.template.digest),
            offers.map(() => expiresAt),
          ],
        );
        const meta: SearchMeta = {
          searchId,
          version: 1,
          affiliateId: request.svc_affiliate_id,
          campaignId: request.svc_campaign_id,
          isTest: false,
          createdAt: now.toISOString(),
          closesAt: new Date(now.getTime() + 45_000).toISOString(),
          processingDone: false,
          acceptedCount: 0,
          trueExclusiveAccepted: false,
          order: offers.map((o) => o.svc_result_id),
        };
        await store.write(
          meta,
          offers.map((o, i) => ({ id: o.svc_result_id, json: entries[i] })),
          SEARCH_STATE_TTL_SECONDS,
        );
        answerJson(res, 200, searchAnswerBody(meta, entries, now).body);
        if (partnerCalls.length > 0) {
          pending++;
          partnerRound(meta, request.lead, request.tracking as Record<string, string>)
            .catch(() => failures++)
            .finally(() => pending--);
        }
      },
      async () => {
        redis.disconnect();
        await pool.end();
      },
    ),
  );
}

if (require.main === module) main();
