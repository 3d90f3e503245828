import { randomUUID } from 'node:crypto';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@lr/config';
import type { AmqpConnection } from '@lr/messaging';
import { TokenBucket } from '@lr/redis';
import { readSearchState, searchStateKey } from '@lr/search-state';
import { Endpoint } from '../../../apps/gateway/src/auth/endpoint.decorator';
import { RateLimitGuard, RateLimitReadsAlong, readAlongValue } from '../../../apps/gateway/src/auth/rate-limit.guard';
import { ApiError } from '../../../apps/gateway/src/http/api-error';
import { Dependencies, DependencyFailure } from '../../../apps/gateway/src/http/dependencies';
import { TEST_REDIS_URL, uniqueSuffix } from '../../support/test-env';

/**
 * The rate limit with a handler's read along, on the real Redis: the read's
 * value reaches the handler only when the call is admitted; a refused call is
 * 429 whatever the read did; an admitted call whose read fails is 503.
 */
describe('RateLimitGuard with a read along', () => {
  const redis = new Redis(TEST_REDIS_URL, { keyPrefix: `test:${uniqueSuffix()}:` });
  afterAll(() => redis.disconnect());
  // Probes that always pass: Redis answers (or fails) only the calls themselves.
  const up = { query: async () => undefined, ping: async () => 'PONG' };
  const deps = new Dependencies(
    up as unknown as DataSource,
    up as unknown as Redis,
    up as unknown as AmqpConnection,
    { dependencyTimeoutMs: 2000 } as AppConfig,
  );
  const guard = new RateLimitGuard(new Reflector(), new TokenBucket(redis), deps, redis);

  class Handler {
    @Endpoint('results')
    @RateLimitReadsAlong((req, client) => readSearchState(client, (req.params as { id: string }).id))
    results(): void {}
  }

  /** One call of `keyId` (a budget of one call: burst 1, refilled once a minute) reading search `id` along. */
  const call = async (keyId: string, id: string) => {
    const req = {
      params: { id },
      principal: { keyId, affiliateId: 'a', limits: { results: { perMinute: 1, burst: 1 } } },
    } as unknown as FastifyRequest;
    const headers: Record<string, string> = {};
    const reply = { header: (name: string, value: string) => (headers[name] = value) } as unknown as FastifyReply;
    const ctx = new ExecutionContextHost([req, reply], Handler, Handler.prototype.results);
    const outcome = await guard.canActivate(ctx).then(
      (admitted) => ({ admitted }),
      (error: unknown) => ({ error }),
    );
    return { outcome, value: readAlongValue(req), headers };
  };

  it('admits the call and hands the handler what its read found, with the budget in the headers', async () => {
    const keyId = randomUUID();
    const { outcome, value, headers } = await call(keyId, 'none');
    expect(outcome).toEqual({ admitted: true });
    expect(value).toBeUndefined(); // no such search: the handler answers 404 or reads PostgreSQL
    await redis.hset(searchStateKey('known'), 'meta', JSON.stringify({ searchId: 's', version: 1, order: [] }));
    const second = await call(randomUUID(), 'known');
    expect(second.outcome).toEqual({ admitted: true });
    expect(second.value).toEqual({ meta: { searchId: 's', version: 1, order: [] }, entries: new Map() });
    expect(headers).toEqual({ 'X-RateLimit-Limit': '1/min; burst=1', 'X-RateLimit-Remaining': '0' });
  });

  it('refuses a call over its budget with 429, and the handler sees nothing the read found', async () => {
    const keyId = randomUUID();
    await redis.hset(searchStateKey('seen'), 'meta', JSON.stringify({ searchId: 's', version: 1, order: [] }));
    expect((await call(keyId, 'seen')).value).toBeDefined();
    const refused = await call(keyId, 'seen');
    expect(refused.outcome).toEqual({ error: expect.objectContaining({ httpStatus: 429, code: 'RATE_LIMITED' }) });
    expect(refused.value).toBeUndefined();
  });

  it('answers 503 for an admitted call whose read fails, and 429 (not 503) for a refused one', async () => {
    await redis.set(searchStateKey('not-a-hash'), 'x');
    const keyId = randomUUID();
    const failed = await call(keyId, 'not-a-hash');
    expect((failed as { outcome: { error: unknown } }).outcome.error).toBeInstanceOf(DependencyFailure);
    expect(failed.outcome).toEqual({ error: expect.objectContaining({ httpStatus: 503 }) });
    const refused = await call(keyId, 'not-a-hash');
    expect((refused as { outcome: { error: unknown } }).outcome.error).toBeInstanceOf(ApiError);
    expect(refused.outcome).toEqual({ error: expect.objectContaining({ httpStatus: 429 }) });
  });
});
