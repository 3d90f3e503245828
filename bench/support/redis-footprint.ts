import Redis from 'ioredis';
import { searchStateKey } from '../../libs/search-state/src/search-state';

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
      const [usage, ttl] = await Promise.all([
        redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0') as Promise<number | null>,
        redis.ttl(key),
      ]);
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

/** Redis's own memory over a phase: `used_memory` before it and the highest seen while it ran (INFO memory, sampled). */
export interface RedisMemoryPeak {
  beforeBytes: number;
  peakBytes: number;
  /** The peak's growth over what Redis held before the phase. */
  grownBytes: number;
}

/**
 * Samples Redis's `used_memory` every `everyMs` from now until `stop()`: the
 * measured peak, the whole server's (every key the system writes for a
 * search, rate-limit counters included), not a sum of key sizes. Run it on a
 * quiet Redis: another client's keys count too.
 */
export async function sampleRedisMemory(url: string, everyMs = 100): Promise<{ stop: () => Promise<RedisMemoryPeak> }> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  const used = async () => Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1] ?? NaN);
  const beforeBytes = await used();
  let peakBytes = beforeBytes;
  let running = true;
  const loop = (async () => {
    while (running) {
      peakBytes = Math.max(peakBytes, await used());
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      peakBytes = Math.max(peakBytes, await used());
      redis.disconnect();
      return { beforeBytes, peakBytes, grownBytes: peakBytes - beforeBytes };
    },
  };
}
