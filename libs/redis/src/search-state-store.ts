import Redis from 'ioredis';

/**
 * Writes a search's hot state (JSON with a numeric `version`) to Redis only if
 * it is newer than what is there. Two workers can finish changes of one search
 * in either order (the first results and a fast partner's answer, or two
 * partners); PostgreSQL serializes the changes and numbers them, and this keeps
 * Redis from ever going back to an older list. One Lua script, so the compare
 * and the write are atomic.
 */
const SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current then
  local ok, old = pcall(cjson.decode, current)
  if ok and type(old) == 'table' and tonumber(old.version) and tonumber(old.version) >= tonumber(ARGV[2]) then
    return 0
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[3]))
return 1
`;

type WithScript = Redis & { setIfNewer(key: string, json: string, version: number, ttlSeconds: number): Promise<number> };

export class VersionedJsonStore {
  private readonly redis: WithScript;

  constructor(redis: Redis) {
    if (!(redis as unknown as Partial<WithScript>).setIfNewer) redis.defineCommand('setIfNewer', { numberOfKeys: 1, lua: SCRIPT });
    this.redis = redis as WithScript;
  }

  /** True when written; false when Redis already holds this version or a newer one. */
  async setIfNewer(key: string, value: { version: number }, ttlSeconds: number): Promise<boolean> {
    return (await this.redis.setIfNewer(key, JSON.stringify(value), value.version, ttlSeconds)) === 1;
  }
}
