import Redis from 'ioredis';
import { searchStateKey } from '../../libs/contracts/src';

/** What the searches of a bench hold in Redis: bytes per search state (MEMORY USAGE) and how long each is kept (TTL). */
export interface RedisFootprint {
  searches: number;
  bytesPerSearch: number;
  /** For 1,000 searches whose state is in Redis (open, or with results still to submit). */
  mbPer1000: number;
  ttlSeconds: { min: number; max: number };
  /** At `rate` searches a second, each kept its TTL: the working set, MB. */
  workingSetMbAt: (rate: number) => number;
}

/**
 * Reads every named search's state key (`MEMORY USAGE … SAMPLES 0`: the whole
 * hash, every field counted) and its TTL. Searches are read where the apps
 * wrote them: `prefix` is the bench's REDIS_KEY_PREFIX.
 */
export async function redisFootprint(url: string, prefix: string, searchIds: readonly string[]): Promise<RedisFootprint> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let bytes = 0;
    let counted = 0;
    const ttls: number[] = [];
    for (const id of searchIds) {
      const key = `${prefix}${searchStateKey(id)}`;
      const [usage, ttl] = await Promise.all([redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0') as Promise<number | null>, redis.ttl(key)]);
      if (usage === null || ttl < 0) continue;
      bytes += usage;
      counted += 1;
      ttls.push(ttl);
    }
    const bytesPerSearch = counted > 0 ? Math.round(bytes / counted) : 0;
    const meanTtl = ttls.length > 0 ? ttls.reduce((a, b) => a + b, 0) / ttls.length : 0;
    return {
      searches: counted,
      bytesPerSearch,
      mbPer1000: Math.round((bytesPerSearch * 1000) / 1e4) / 100,
      ttlSeconds: { min: Math.min(...ttls), max: Math.max(...ttls) },
      workingSetMbAt: (rate) => Math.round((rate * meanTtl * bytesPerSearch) / 1e4) / 100,
    };
  } finally {
    redis.disconnect();
  }
}
