import { withShortLivedRedis } from './redis-client';

/**
 * Where the operator CLI announces a changed API key (revoked) so every
 * gateway forgets its cached copy at once. Pub/sub channels are not key-
 * prefixed by ioredis, so the configured prefix is added here: a test run and
 * a running system on one Redis never hear each other.
 */
export const apiKeyEventsChannel = (keyPrefix: string): string => `${keyPrefix}api-keys:changed`;

/** Announces a changed key (its id), or "*" for every key. Resolves with the number of gateways that heard it. */
export async function announceKeyChange(redisUrl: string, keyPrefix: string, keyId: string, timeoutMs = 2000): Promise<number> {
  return withShortLivedRedis(redisUrl, { timeoutMs }, (client) => client.publish(apiKeyEventsChannel(keyPrefix), keyId));
}
