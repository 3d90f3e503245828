import Redis from 'ioredis';
import { searchAnswerBody } from '../../libs/search-state/src/search-answer';
import { orderedEntries, SearchStateStore } from '../../libs/search-state/src/search-state-store';
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
      const cached = id ? await store.read(id) : undefined;
      const entries = cached && orderedEntries(cached);
      if (!cached || entries === undefined)
        return answerJson(res, 404, '{"code":"NOT_FOUND","status":"invalid","reason":"Search not found"}');
      answerJson(res, 200, searchAnswerBody(cached.meta, entries).body);
    },
    async () => void redis.disconnect(),
  );
}

if (require.main === module) main();
