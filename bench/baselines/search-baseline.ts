import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Redis from 'ioredis';
import { Pool } from 'pg';
import type { ResultEntry, SearchMeta } from '../../libs/contracts/src';
import { SearchStateStore } from '../../libs/redis/src/search-state-store';
import { SEARCH_STATE_TTL_SECONDS, searchAnswerBody, searchStateKey } from '../../libs/contracts/src';
import { answerJson, inTransaction, serveBare } from './bare-server';

/** The baseline's own tables: the column shapes of `searches` and `results` that a search writes. */
export const SEARCH_BASELINE_SCHEMA = `
  CREATE TABLE IF NOT EXISTS bench_searches (id uuid PRIMARY KEY, lead jsonb NOT NULL, tracking jsonb NOT NULL, created_at timestamptz NOT NULL);
  CREATE TABLE IF NOT EXISTS bench_results (id uuid PRIMARY KEY, search_id uuid NOT NULL REFERENCES bench_searches (id), rank int NOT NULL, entry jsonb NOT NULL);
  CREATE INDEX IF NOT EXISTS ix_bench_results_search_rank ON bench_results (search_id, rank);
`;

/**
 * Baseline for searches: the storage work of a search without the framework,
 * the messaging and the checks. POST /search parses the JSON body; one
 * PostgreSQL transaction inserts the search row and its result rows (copies of
 * the result entries a real search answered, so the same JSON size); the state
 * is written to Redis; the answer is the same envelope with those entries.
 * Each entry is serialized once and its bytes reused for all three, as the
 * search-orchestrator does.
 * Env: PORT, DATABASE_URL, REDIS_URL, REDIS_KEY_PREFIX, BENCH_ENTRIES_FILE
 * (a JSON array of result entries).
 */
function main(): void {
  const template = JSON.parse(readFileSync(process.env.BENCH_ENTRIES_FILE!, 'utf8')) as ResultEntry[];
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const redis = new Redis(process.env.REDIS_URL!, { keyPrefix: process.env.REDIS_KEY_PREFIX });
  const store = new SearchStateStore(redis);
  void pool.query(SEARCH_BASELINE_SCHEMA).then(() =>
    serveBare(
    async (req, body, res) => {
      if (req.method !== 'POST' || req.url !== '/search') return answerJson(res, 404, '{"code":"NOT_FOUND"}');
      const request = JSON.parse(body.toString('utf8')) as { svc_campaign_id: string; svc_affiliate_id: string; lead: unknown; tracking: unknown };
      const searchId = randomUUID();
      const now = new Date();
      const offers = template.map((e) => ({ ...e, svc_result_id: randomUUID(), expires_at: new Date(now.getTime() + 900_000).toISOString() }));
      const entries = offers.map((o) => Buffer.from(JSON.stringify(o)));
      await inTransaction(pool, async (client) => {
        await client.query('INSERT INTO bench_searches (id, lead, tracking, created_at) VALUES ($1, $2, $3, $4)', [
          searchId, JSON.stringify(request.lead), JSON.stringify(request.tracking), now,
        ]);
        await client.query(
          `INSERT INTO bench_results (id, search_id, rank, entry)
           SELECT x.id, $1, x.rank, x.entry FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, rank int, entry jsonb)`,
          [searchId, `[${offers.map((o, rank) => `{"id":"${o.svc_result_id}","rank":${rank},"entry":${entries[rank].toString('utf8')}}`).join(',')}]`],
        );
      });
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
