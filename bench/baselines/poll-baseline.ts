import Redis from 'ioredis';
import { searchStateKey } from '../../libs/contracts/src';
import { orderedEntries, SearchStateStore } from '../../libs/redis/src/search-state-store';
import { pollBody } from '../../apps/gateway/src/poll-results/search-envelope';
import { answerJson, serveBare } from './bare-server';

/**
 * Baseline for polls: GET /results/<id> read from the same Redis hash the
 * gateway reads (`<prefix>search:<id>`, HGETALL) and answered in the same
 * envelope, the entries joined as stored — the
 * least a poll can cost. No authentication, rate limit, framework or logging:
 * the gap to the gateway is what those cost.
 * Env: PORT, REDIS_URL, REDIS_KEY_PREFIX.
 */
function main(): void {
  const redis = new Redis(process.env.REDIS_URL!, { keyPrefix: process.env.REDIS_KEY_PREFIX });
  const store = new SearchStateStore(redis);
  serveBare(
    async (req, _body, res) => {
      const id = /^\/results\/([0-9a-f-]{36})$/.exec(req.url ?? '')?.[1];
      const cached = id ? await store.read(searchStateKey(id)) : undefined;
      const entries = cached && orderedEntries(cached);
      if (!cached || entries === undefined)
        return answerJson(res, 404, '{"code":"NOT_FOUND","status":"invalid","reason":"Search not found"}');
      answerJson(res, 200, pollBody({ meta: cached.meta, entries }).body);
    },
    async () => void redis.disconnect(),
  );
}

if (require.main === module) main();
