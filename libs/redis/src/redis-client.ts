import Redis from 'ioredis';
import { AppConfig } from '@lr/config';

/**
 * One ioredis client per process, set to fail fast: no offline queue, one try
 * per command and a command timeout, so a Redis outage turns into a 503 within
 * the dependency timeout instead of requests piling up. ioredis reconnects by
 * itself when Redis is back.
 */
export function createRedisClient(config: AppConfig, name = config.app): Redis {
  const timeout = config.dependencyTimeoutMs;
  const client = new Redis(config.redis.url, {
    connectionName: `lead-router:${name}`,
    keyPrefix: config.redis.keyPrefix,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: timeout,
    connectTimeout: timeout,
    enableReadyCheck: true,
    lazyConnect: false,
    retryStrategy: (times) => Math.min(100 * times, 1000),
    reconnectOnError: () => false,
  });
  // Errors surface on commands; an 'error' listener keeps a disconnect from crashing the process.
  client.on('error', () => undefined);
  return client;
}

export function redisReadiness(client: Redis) {
  return {
    name: 'redis',
    async check(): Promise<void> {
      const pong = await client.ping();
      if (pong !== 'PONG') throw new Error(`unexpected PING answer ${pong}`);
    },
  };
}

/**
 * One connection for one operator command: connected now, one try per
 * command, no reconnection, always closed after `work`. A Redis that cannot
 * be reached fails the command within `timeoutMs`.
 */
export async function withShortLivedRedis<T>(
  url: string,
  opts: { keyPrefix?: string; timeoutMs: number },
  work: (client: Redis) => Promise<T>,
): Promise<T> {
  const client = new Redis(url, {
    lazyConnect: true,
    keyPrefix: opts.keyPrefix,
    maxRetriesPerRequest: 0,
    connectTimeout: opts.timeoutMs,
    commandTimeout: opts.timeoutMs,
    retryStrategy: () => null,
    // CLIENT SETINFO fails on a Redis before 7.2, and its failed command keeps a commandTimeout timer that holds the process open that long.
    disableClientInfo: true,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await work(client);
  } finally {
    client.disconnect();
  }
}
