import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Redis from 'ioredis';
import { Pool } from 'pg';
import type { ResultEntry, SearchMeta } from '../../libs/contracts/src';
import { SearchStateStore } from '../../libs/redis/src/search-state-store';
import { SEARCH_STATE_TTL_SECONDS, searchAnswerBody, searchStateKey } from '../../libs/contracts/src';
import { newLeadId } from '../../libs/domain/src/ids/lead-ids';
import { entryText, newResult } from '../../libs/persistence/src/repositories/stored-result';
import { answerJson, serveBare } from './bare-server';

/** The baseline's own tables: the shapes of `searches` and `result_templates` that a search writes (docs/storage.md). */
export const SEARCH_BASELINE_SCHEMA = `
  CREATE TABLE IF NOT EXISTS bench_searches (id uuid PRIMARY KEY, lead jsonb NOT NULL, tracking jsonb NOT NULL, created_at timestamptz NOT NULL,
                                             result_order uuid[] NOT NULL, result_templates uuid[] NOT NULL, result_expires timestamptz[] NOT NULL);
  CREATE TABLE IF NOT EXISTS bench_templates (digest uuid PRIMARY KEY, body text NOT NULL);
`;

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
 * Env: PORT, DATABASE_URL, REDIS_URL, REDIS_KEY_PREFIX, BENCH_ENTRIES_FILE
 * (a JSON array of result entries).
 */
function main(): void {
  const template = JSON.parse(readFileSync(process.env.BENCH_ENTRIES_FILE!, 'utf8')) as ResultEntry[];
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const redis = new Redis(process.env.REDIS_URL!, { keyPrefix: process.env.REDIS_KEY_PREFIX });
  const store = new SearchStateStore(redis);
  const templates = template.map((e) => newResult({ resultId: e.svc_result_id, entry: e, expiresAt: new Date(), partnerData: null }).template);
  const ready = pool
    .query(SEARCH_BASELINE_SCHEMA)
    .then(() =>
      pool.query(`INSERT INTO bench_templates (digest, body) SELECT x.digest, x.body FROM jsonb_to_recordset($1::jsonb) AS x(digest uuid, body text) ON CONFLICT DO NOTHING`, [
        JSON.stringify(templates.map((t) => ({ digest: t.digest, body: t.body }))),
      ]),
    );
  void ready.then(() =>
    serveBare(
    async (req, body, res) => {
      if (req.method !== 'POST' || req.url !== '/search') return answerJson(res, 404, '{"code":"NOT_FOUND"}');
      const request = JSON.parse(body.toString('utf8')) as { svc_campaign_id: string; svc_affiliate_id: string; lead: unknown; tracking: unknown };
      const searchId = newLeadId();
      const now = new Date();
      const expiresAt = new Date(now.getTime() + 900_000);
      const offers = templates.map((t) => ({ svc_result_id: randomUUID(), template: t }));
      const entries = offers.map((o) => Buffer.from(entryText(o.svc_result_id, o.template.body, expiresAt)));
      await pool.query(
        `INSERT INTO bench_searches (id, lead, tracking, created_at, result_order, result_templates, result_expires)
         VALUES ($1, $2, $3, $4, $5::uuid[], $6::uuid[], $7::timestamptz[])`,
        [searchId, JSON.stringify(request.lead), JSON.stringify(request.tracking), now, offers.map((o) => o.svc_result_id),
          offers.map((o) => o.template.digest), offers.map(() => expiresAt)],
      );
      const meta: SearchMeta = {
        searchId, version: 1, affiliateId: request.svc_affiliate_id, campaignId: request.svc_campaign_id, isTest: false,
        createdAt: now.toISOString(), closesAt: new Date(now.getTime() + 45_000).toISOString(), processingDone: false,
        acceptedCount: 0, trueExclusiveAccepted: false, order: offers.map((o) => o.svc_result_id),
      };
      await store.write(searchStateKey(searchId), meta, offers.map((o, i) => ({ id: o.svc_result_id, json: entries[i] })), SEARCH_STATE_TTL_SECONDS);
      answerJson(res, 200, searchAnswerBody(meta, entries, now).body);
    },
    async () => {
      redis.disconnect();
      await pool.end();
    },
  ));
}

if (require.main === module) main();
