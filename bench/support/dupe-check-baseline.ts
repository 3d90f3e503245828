import { Pool } from 'pg';
import { soldWithinWindow } from '../../libs/domain/src';
import { DedupeIndex } from '../../libs/persistence/src/repositories/dedupe-index.repository';
import { parseDupeCheckRequest } from '../../apps/gateway/src/pre-check/dupe-check-request';
import { answerJson, serveBare } from '../baselines/bare-server';
import { BENCH_KEY_SECRET } from './bench-state';

/**
 * Baseline for the duplicate pre-check: POST /dupe-check reads the body with
 * the gateway's own parseDupeCheckRequest (normalization and hashing
 * included), runs the very same SQL statement and duplicate rule (offer-scoped with offer_id,
 * account-wide for BENCH_AFFILIATE_ID without) on a pool as large as the
 * gateway's, and answers the same JSON. No framework, authentication, rate
 * limit, account and offer checks or logging: the gap to the gateway is what
 * those cost.
 * Env: PORT, DATABASE_URL, BENCH_AFFILIATE_ID.
 */
function main(): void {
  const affiliateId = process.env.BENCH_AFFILIATE_ID!;
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
  serveBare(
    async (req, body, res) => {
      if (req.method !== 'POST' || req.url !== '/dupe-check') return answerJson(res, 404, '{"code":"NOT_FOUND"}');
      const { offerId, keys } = parseDupeCheckRequest(BENCH_KEY_SECRET, JSON.parse(body.toString('utf8')));
      let duplicate = false;
      if (keys.length > 0) {
        const { sql, params } = DedupeIndex.lastSalesStatement(keys, offerId !== undefined ? { offerIds: [offerId] } : { affiliateId });
        const { rows } = await pool.query<{ last_sold_at: Date; window_days: number }>(sql, params);
        const now = new Date();
        duplicate = rows.some((r) => soldWithinWindow(r.last_sold_at, r.window_days, now));
      }
      answerJson(
        res,
        200,
        JSON.stringify({ code: 'OK', status: 'accepted', reason: 'OK', success: true, duplicate_likely: duplicate, retryable: false }),
      );
    },
    () => pool.end(),
  );
}

if (require.main === module) main();
