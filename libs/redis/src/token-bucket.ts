import Redis from 'ioredis';

/**
 * The contract's rate limit, exactly: per key and endpoint, a bucket holding at
 * most `burst` tokens that refills continuously at perMinute/60 tokens a second;
 * each call takes one token or is refused with the wait until one is available.
 *
 * Hand-written because no maintained library implements this exact bucket in
 * Redis: rate-limiter-flexible and the NestJS throttler count fixed or sliding
 * windows, which admit 2x the burst at a window edge and cannot express
 * "burst 10, refill 1/s". The state (tokens, last refill time in µs) lives in one
 * Redis hash updated by one Lua script, so concurrent gateways share it atomically,
 * and the clock is Redis's TIME, so gateway clock skew does not matter.
 */
const SCRIPT = `
local burst = tonumber(ARGV[1])
local rate = tonumber(ARGV[2]) -- tokens per microsecond
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then
  tokens = burst
  ts = now
end
if now > ts then
  tokens = math.min(burst, tokens + (now - ts) * rate)
end
local allowed = 0
local wait_us = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  wait_us = math.ceil((1 - tokens) / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
-- Idle buckets expire once they would be full again anyway.
redis.call('PEXPIRE', KEYS[1], math.ceil((burst / rate) / 1000) + 1000)
return { allowed, wait_us, tostring(tokens) }
`;

export interface BucketLimit {
  perMinute: number;
  burst: number;
}

export interface BucketDecision {
  allowed: boolean;
  /** When refused: whole seconds until a token is available (at least 1); 0 when allowed. */
  retryAfterSeconds: number;
  /** Tokens left after this call (fractional). */
  remaining: number;
}

type WithBucket = Redis & { takeToken(key: string, burst: number, ratePerUs: string): Promise<[number, number, string]> };

export class TokenBucket {
  private readonly redis: WithBucket;

  constructor(redis: Redis) {
    if (!(redis as unknown as Partial<WithBucket>).takeToken) redis.defineCommand('takeToken', { numberOfKeys: 1, lua: SCRIPT });
    this.redis = redis as WithBucket;
  }

  async take(key: string, limit: BucketLimit): Promise<BucketDecision> {
    return decide(await this.redis.takeToken(...takeArgs(key, limit)));
  }
}

function takeArgs(key: string, limit: BucketLimit): [string, number, string] {
  const ratePerUs = limit.perMinute / 60 / 1_000_000;
  return [`rl:${key}`, limit.burst, ratePerUs.toExponential(12)];
}

function decide([allowed, waitUs, tokens]: [number, number, string]): BucketDecision {
  return {
    allowed: allowed === 1,
    retryAfterSeconds: allowed === 1 ? 0 : Math.max(1, Math.ceil(waitUs / 1_000_000)),
    remaining: Number(tokens),
  };
}
