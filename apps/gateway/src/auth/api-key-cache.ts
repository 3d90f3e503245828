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
 * is down). Expiry is checked on every call from the cached `expiresAt`.
 *
 * A key hash PostgreSQL does not know is remembered apart, as unknown, for
 * UNKNOWN_KEY_CACHE_MS (5 s): a flood of one made-up key costs one lookup,
 * not one per call (a flood of different ones is the address budget's:
 * AddressBudget). Both maps are bounded (MAX_KEYS; full, they start again),
 * so guessing cannot grow them. A key issued after its hash was found unknown
 * is refused for at most that long; `keys issue` never hands out a key anyone
 * presented before, so this is a guess that came true, not a customer.
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
  private readonly unknownAt = new Map<string, number>();

  constructor(
    private readonly keys: ApiKeyRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly changes: CatalogChanges,
    private readonly deps: Dependencies,
  ) {
    changes.onChange((keyId) => this.drop(keyId));
  }

  /** Whether `find` would answer this hash from memory with a key that exists (no lookup). */
  holds(keyHash: string, now = Date.now()): boolean {
    const hit = this.byHash.get(keyHash);
    return hit !== undefined && this.changes.listening && now - hit.at < this.config.apiKeyCacheMs;
  }

  async find(keyHash: string, now = Date.now()): Promise<ApiKeyRecord | null> {
    const hit = this.byHash.get(keyHash);
    if (hit && this.changes.listening && now - hit.at < this.config.apiKeyCacheMs) return hit.record;
    const unknownSince = this.unknownAt.get(keyHash);
    if (unknownSince !== undefined) {
      if (now - unknownSince < this.config.unauthenticated.unknownKeyCacheMs) return null;
      this.unknownAt.delete(keyHash);
    }
    const generation = this.changes.generation;
    // While PostgreSQL is unavailable, a key read before is used as read (see the class comment).
    const held = () => {
      const entry = this.byHash.get(keyHash);
      return entry && this.changes.listening ? { value: entry.record, at: entry.at } : undefined;
    };
    const read = await orFromMemory('api_key', () => this.deps.call('postgres', () => this.keys.findByHash(keyHash)), held, now);
    const record = read.value;
    if (read.fromMemory) return record;
    if (!record && this.config.unauthenticated.unknownKeyCacheMs > 0) {
      if (this.unknownAt.size >= MAX_KEYS) this.unknownAt.clear();
      this.unknownAt.set(keyHash, now);
    }
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
    if (keyId === '*') {
      this.unknownAt.clear();
      return this.byHash.clear();
    }
    for (const [hash, entry] of this.byHash) if (entry.record.id === keyId) this.byHash.delete(hash);
  }
}
