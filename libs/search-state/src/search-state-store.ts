import Redis from 'ioredis';
import type { SearchMeta } from '@lr/contracts';
import { searchStateKey } from './search-state';

/**
 * A search's hot state in Redis, as a hash (see SearchMeta): `meta` + `v` (its
 * version), and one `r:<result id>` field per result entry, stored as the JSON
 * the affiliate sees.
 *
 * Why a hash of entries rather than one JSON document: a search's list is
 * about 1.3 KB per result, and it grows while partners answer. Entries never
 * change once shown, so each change writes only its new entries and the small
 * meta; and a poll joins the stored entry strings in `order` without parsing
 * and re-serializing the whole list.
 *
 * Two workers can finish changes of one search in either order. PostgreSQL
 * serializes and numbers them; the script below adds the writer's entries
 * (always safe: they are immutable) but replaces `meta` only with a newer
 * version, so Redis never goes back to an older list. A reader that finds an
 * id in `order` whose entry is not written yet (an older writer still on its
 * way) reads PostgreSQL instead.
 */
const WRITE = `
local version = tonumber(ARGV[1])
for i = 4, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
local current = tonumber(redis.call('HGET', KEYS[1], 'v'))
local written = 0
if current == nil or current < version then
  redis.call('HSET', KEYS[1], 'v', version, 'meta', ARGV[2])
  written = 1
end
-- Only ever extends the key's lifetime: a writer that knows fewer of the entries' expiries never shortens it.
local ttl = tonumber(ARGV[3])
if redis.call('TTL', KEYS[1]) < ttl then
  redis.call('EXPIRE', KEYS[1], ttl)
end
return written
`;

/**
 * HGETALL, answered as Redis sends it: a flat array of name, value, name,
 * value (Buffers, through `callBuffer`). ioredis registers a reply
 * transformer for the `hgetall` command that builds an object with one
 * property per field, each name decoded and tested with `in`: for a search's
 * 47 fields that was about a seventh of the gateway's CPU per poll in a
 * profile, and 35-50 µs per read of the client's CPU in a loop (Redis's the
 * same; bench/results/performance-history.md). ioredis finds transformers and key positions by
 * the command's exact (lower-case) name, so by this name it applies neither:
 * the reply is read once by decodeSearch, and the store adds the client's key
 * prefix itself (prefixed). A Lua script returning HGETALL would keep both but
 * costs Redis about 95 µs more per read, copying every entry into Lua and
 * back.
 */
const HGETALL = 'HGETALL';

/** `key` with the client's key prefix, which ioredis does not add for a command it does not know by name. */
function prefixed(client: Redis, key: string): string {
  const prefix = (client as unknown as { options?: { keyPrefix?: string } }).options?.keyPrefix;
  return prefix ? `${prefix}${key}` : key;
}

type WithScript = Redis & { writeSearchState(key: string, ...args: Array<string | number | Buffer>): Promise<number> };

export interface CachedSearch {
  meta: SearchMeta;
  /**
   * The entries as stored: result id -> the entry's JSON, as the bytes Redis
   * sent. Never decoded to strings: a poll copies them into its answer as
   * they are, so a 60 KB list costs no UTF-8 decoding and encoding, and the
   * bytes live outside the JS heap (large strings held across a request's
   * awaits were most of the gateway's garbage collection).
   */
  entries: Map<string, Buffer>;
}

export class SearchStateStore {
  private readonly redis: WithScript;

  constructor(redis: Redis) {
    if (!(redis as unknown as Partial<WithScript>).writeSearchState)
      redis.defineCommand('writeSearchState', { numberOfKeys: 1, lua: WRITE });
    this.redis = redis as WithScript;
  }

  /**
   * Adds `entries` (result id -> the entry's JSON, serialized once by its
   * maker) to the search's state and sets `meta` if newer; the state then
   * lives at least `ttlSeconds` (a longer lifetime already set stays). True
   * when meta was written.
   */
  async write(meta: SearchMeta, entries: ReadonlyArray<{ id: string; json: Buffer }>, ttlSeconds: number): Promise<boolean> {
    const args: Array<string | number | Buffer> = [meta.version, JSON.stringify(meta), ttlSeconds];
    for (const e of entries) args.push(`r:${e.id}`, e.json);
    return (await this.redis.writeSearchState(searchStateKey(meta.searchId), ...args)) === 1;
  }

  read(searchId: string): Promise<CachedSearch | undefined> {
    return readSearchState(this.redis, searchId);
  }

  /** Deletes these searches' states (a person's, erased: docs/deletion.md); answers how many there were. */
  async forget(searchIds: readonly string[]): Promise<number> {
    return searchIds.length === 0 ? 0 : this.redis.del(...searchIds.map(searchStateKey));
  }

  /** How many of these searches' states Redis holds (what forget would delete). */
  async held(searchIds: readonly string[]): Promise<number> {
    return searchIds.length === 0 ? 0 : this.redis.exists(...searchIds.map(searchStateKey));
  }
}

/**
 * A search's state as `redis` holds it (one HGETALL, sent at once: a caller
 * may write it right behind another command to share its round trip);
 * undefined when it holds none, or only part of one being written.
 */
export async function readSearchState(redis: Redis, searchId: string): Promise<CachedSearch | undefined> {
  return decodeSearch(await redis.callBuffer(HGETALL, prefixed(redis, searchStateKey(searchId))));
}

/** A shown result as a submit's front door checks it: whose search, which campaign and offer. */
export interface ShownResultRef {
  affiliateId: string;
  campaignId: string | null;
  offerId: string;
}

/** One shown result of a search as a submit's front door checks it (its meta and its entry, one HMGET); undefined when Redis has either not. */
export async function readShownResult(redis: Redis, searchId: string, resultId: string): Promise<ShownResultRef | undefined> {
  const [meta, entry] = await redis.hmgetBuffer(searchStateKey(searchId), 'meta', `r:${resultId}`);
  if (!meta || !entry) return undefined;
  const m = JSON.parse(meta.toString('utf8')) as SearchMeta;
  const e = JSON.parse(entry.toString('utf8')) as { campaign_id: string | null; offer: { id: string } };
  return { affiliateId: m.affiliateId, campaignId: e.campaign_id, offerId: e.offer.id };
}

const META = Buffer.from('meta');
const ENTRY = 0x72; // 'r', of an entry's field name `r:<result id>`
const COLON = 0x3a;

/** A search state from HGETALL's flat reply; undefined without its meta (no state, or one being written), and for any other reply (PostgreSQL answers then). */
export function decodeSearch(reply: unknown): CachedSearch | undefined {
  if (!Array.isArray(reply)) return undefined;
  let meta: Buffer | undefined;
  const entries = new Map<string, Buffer>();
  for (let i = 0; i + 1 < reply.length; i += 2) {
    const name = reply[i] as Buffer;
    if (name.length > 2 && name[0] === ENTRY && name[1] === COLON) entries.set(name.toString('utf8', 2), reply[i + 1] as Buffer);
    else if (name.equals(META)) meta = reply[i + 1] as Buffer;
  }
  if (!meta) return undefined;
  return { meta: JSON.parse(meta.toString('utf8')) as SearchMeta, entries };
}

/** The entries' JSON in the meta's order; undefined when one is missing (read PostgreSQL then). */
export function orderedEntries(cached: CachedSearch): Buffer[] | undefined {
  const parts: Buffer[] = [];
  for (const id of cached.meta.order) {
    const entry = cached.entries.get(id);
    if (entry === undefined) return undefined;
    parts.push(entry);
  }
  return parts;
}
