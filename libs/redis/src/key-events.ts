import Redis from 'ioredis';

/**
 * Where the operator CLI announces a changed API key (revoked) so every
 * gateway forgets its cached copy at once. Pub/sub channels are not key-
 * prefixed by ioredis, so the configured prefix is added here: a test run and
 * a running system on one Redis never hear each other.
 */
export const apiKeyEventsChannel = (keyPrefix: string): string => `${keyPrefix}api-keys:changed`;

/** Announces a changed key (its id), or "*" for every key. Resolves with the number of gateways that heard it. */
export async function announceKeyChange(redisUrl: string, keyPrefix: string, keyId: string, timeoutMs = 2000): Promise<number> {
  const client = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: timeoutMs, commandTimeout: timeoutMs, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.publish(apiKeyEventsChannel(keyPrefix), keyId);
  } finally {
    client.disconnect();
  }
}
