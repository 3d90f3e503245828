import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { ApiKeyRecord, ApiKeyRepository } from '@lr/persistence';
import { Dependencies, orFromMemory } from '../http/dependencies';
import { CatalogChanges } from './catalog-changes';

const MAX_KEYS = 10_000;

/**
 * API keys as read from PostgreSQL, reused for API_KEY_CACHE_MS (1 s): a poll
 * is the hottest call, and a key lookup on every one of them costs as much as
 * the rest of the poll. Revocation still takes effect at once: `keys revoke`
 * announces the key id on a Redis channel and every gateway drops it
 * (CatalogChanges; nothing is served from the cache while that subscription
 * is down). Only keys that exist are cached (an unknown key is never
 * remembered, so guessing cannot fill the cache). Expiry is checked on every
 * call from the cached `expiresAt`.
 *
 * While PostgreSQL is unavailable a key already held is used beyond its cache
 * time (up to SERVE_FROM_MEMORY_MAX_MS), so polls, which Redis answers, keep
 * working: the entry is still dropped at once by any announcement, and it is
 * kept only while the subscription has stayed up since it was read. A key not
 * held answers 503.
 */
@Injectable()
export class ApiKeyCache {
  private readonly byHash = new Map<string, { record: ApiKeyRecord; at: number }>();

  constructor(
    private readonly keys: ApiKeyRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly changes: CatalogChanges,
    private readonly deps: Dependencies,
  ) {
    changes.onChange((keyId) => this.drop(keyId));
  }

  async find(keyHash: string, now = Date.now()): Promise<ApiKeyRecord | null> {
    const hit = this.byHash.get(keyHash);
    if (hit && this.changes.listening && now - hit.at < this.config.apiKeyCacheMs) return hit.record;
    const generation = this.changes.generation;
    // While PostgreSQL is unavailable, a key read before is used as read (see the class comment).
    const held = () => {
      const entry = this.byHash.get(keyHash);
      return entry && this.changes.listening ? { value: entry.record, at: entry.at } : undefined;
    };
    const read = await orFromMemory('api_key', () => this.deps.call('postgres', () => this.keys.findByHash(keyHash)), held, now);
    const record = read.value;
    if (read.fromMemory) return record;
    if (record && this.changes.listening && this.config.apiKeyCacheMs > 0 && generation === this.changes.generation) {
      if (this.byHash.size >= MAX_KEYS) this.byHash.clear();
      this.byHash.set(keyHash, { record, at: now });
    } else {
      this.byHash.delete(keyHash);
    }
    return record;
  }

  /** Drops one key (by id), or every key for "*". */
  private drop(keyId: string): void {
    if (keyId === '*') return this.byHash.clear();
    for (const [hash, entry] of this.byHash) if (entry.record.id === keyId) this.byHash.delete(hash);
  }
}
