import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { ApiKeyRecord, findApiKeyByHash } from '@lr/persistence';
import { REDIS_CLIENT } from '@lr/platform';
import { apiKeyEventsChannel } from '@lr/redis';
import { dependency } from '../http/dependency';

const MAX_KEYS = 10_000;

/**
 * API keys as read from PostgreSQL, reused for API_KEY_CACHE_MS (1 s): a poll
 * is the hottest call, and a key lookup on every one of them costs as much as
 * the rest of the poll. Revocation still takes effect at once: `keys revoke`
 * announces the key id on a Redis channel and every gateway drops it. While
 * that subscription is not up (Redis away, reconnecting) nothing is served from
 * the cache, so an announcement can never be missed; after a reconnect the
 * cache starts empty. Only keys that exist are cached (an unknown key is never
 * remembered, so guessing cannot fill the cache). Expiry is checked on every
 * call from the cached `expiresAt`.
 */
@Injectable()
export class ApiKeyCache implements OnModuleDestroy {
  private readonly log = new Logger(ApiKeyCache.name);
  private readonly byHash = new Map<string, { record: ApiKeyRecord; at: number }>();
  private readonly subscriber: Redis;
  private listening = false;
  /** Bumped by every announcement: a lookup that began before one must not cache what it read. */
  private generation = 0;

  constructor(
    private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS_CLIENT) redis: Redis,
  ) {
    this.subscriber = redis.duplicate({ enableOfflineQueue: true, lazyConnect: true });
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('ready', () => {
      this.byHash.clear();
      this.subscriber
        .subscribe(apiKeyEventsChannel(config.redis.keyPrefix))
        .then(() => (this.listening = true))
        .catch((e: Error) => this.log.warn({ msg: 'API key announcements not subscribed; keys are not cached', err: e.message }));
    });
    this.subscriber.on('close', () => {
      this.listening = false;
      this.generation += 1; // a lookup that spans the outage may have missed an announcement
      this.byHash.clear();
    });
    this.subscriber.on('message', (_channel: string, keyId: string) => this.forget(keyId));
    if (config.apiKeyCacheMs > 0) this.subscriber.connect().catch(() => undefined);
  }

  async find(keyHash: string, now = Date.now()): Promise<ApiKeyRecord | null> {
    const hit = this.byHash.get(keyHash);
    if (hit && this.listening && now - hit.at < this.config.apiKeyCacheMs) return hit.record;
    const generation = this.generation;
    const record = await dependency('postgres', this.config.dependencyTimeoutMs, () => findApiKeyByHash(this.ds, keyHash));
    if (record && this.listening && this.config.apiKeyCacheMs > 0 && generation === this.generation) {
      if (this.byHash.size >= MAX_KEYS) this.byHash.clear();
      this.byHash.set(keyHash, { record, at: now });
    } else {
      this.byHash.delete(keyHash);
    }
    return record;
  }

  /** Drops one key (by id), or every key for "*". */
  forget(keyId: string): void {
    this.generation += 1;
    if (keyId === '*') return this.byHash.clear();
    for (const [hash, entry] of this.byHash) if (entry.record.id === keyId) this.byHash.delete(hash);
  }

  onModuleDestroy(): void {
    this.subscriber.disconnect();
  }
}
