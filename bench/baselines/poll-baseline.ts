import Redis from 'ioredis';
import type { SearchState } from '../../libs/contracts/src';
import { searchStateKey } from '../../libs/contracts/src';
import { answerFromState, searchEnvelope } from '../../apps/gateway/src/results/search-envelope';
import { answerJson, serveBare } from './bare-server';

/**
 * Baseline for polls: GET /results/<id> read from the same Redis key the
 * gateway reads (`<prefix>search:<id>`) and answered in the same envelope — the
 * least a poll can cost. No authentication, rate limit, framework or logging:
 * the gap to the gateway is what those cost.
 * Env: PORT, REDIS_URL, REDIS_KEY_PREFIX.
 */
function main(): void {
  const redis = new Redis(process.env.REDIS_URL!, { keyPrefix: process.env.REDIS_KEY_PREFIX });
  serveBare(
    async (req, _body, res) => {
      const id = /^\/results\/([0-9a-f-]{36})$/.exec(req.url ?? '')?.[1];
      const raw = id ? await redis.get(searchStateKey(id)) : null;
      if (!raw) return answerJson(res, 404, '{"code":"NOT_FOUND","status":"invalid","reason":"Search not found"}');
      answerJson(res, 200, JSON.stringify(searchEnvelope(answerFromState(JSON.parse(raw) as SearchState))));
    },
    async () => void redis.disconnect(),
  );
}

if (require.main === module) main();
