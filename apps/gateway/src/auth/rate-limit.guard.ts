import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Redis, { ChainableCommander } from 'ioredis';
import { DEFAULT_RATE_LIMITS, EndpointName } from '@lr/contracts';
import { counter } from '@lr/observability';
import { REDIS_CLIENT } from '@lr/platform';
import { BucketDecision, BucketLimit, Queued, TokenBucket } from '@lr/redis';
import { ApiError } from '../http/api-error';
import { Dependencies } from '../http/dependencies';
import { ENDPOINT_KEY } from './endpoint.decorator';

const refusals = counter('gateway_rate_limited_total', 'Calls refused with 429, by endpoint', ['endpoint']);

const READ_ALONG_KEY = 'lr:read-along';
const readAlongValues = new WeakMap<FastifyRequest, unknown>();

/**
 * Queues Redis reads a handler needs on the rate limit's pipeline; returns the
 * decoder of what it queued, or undefined when the request needs no read
 * (the handler then answers without one, e.g. 404 for a malformed id).
 */
export type ReadAlong<T> = (req: FastifyRequest, pipeline: ChainableCommander) => Queued<T> | undefined;

/**
 * Lets the rate limit's Redis round trip also carry the handler's hot read
 * (polls: the token-bucket script and the search's HGETALL in one pipeline,
 * one round trip instead of two). The handler gets the value with
 * `readAlongValue(req)`; a refused call reads nothing it can see.
 */
export const RateLimitReadsAlong = <T>(read: ReadAlong<T>) => SetMetadata(READ_ALONG_KEY, read);

/** What the handler's ReadAlong read; undefined when it queued nothing. */
export function readAlongValue<T>(req: FastifyRequest): T | undefined {
  return readAlongValues.get(req) as T | undefined;
}

/**
 * The contract's per-key, per-endpoint budget (Limits). Runs after ApiKeyGuard (or BuyerKeyGuard);
 * every authenticated call counts, test calls and refused ones included.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly bucket: TokenBucket,
    private readonly deps: Dependencies,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const endpoint = this.reflector.get<EndpointName | undefined>(ENDPOINT_KEY, ctx.getHandler());
    const req = ctx.switchToHttp().getRequest<FastifyRequest>();
    const caller = req.principal ?? req.buyer;
    if (!endpoint || !caller) return true;
    const limit = caller.limits[endpoint] ?? DEFAULT_RATE_LIMITS[endpoint];
    const bucketKey = `${caller.keyId}:${endpoint}`;
    const readAlong = this.reflector.get<ReadAlong<unknown> | undefined>(READ_ALONG_KEY, ctx.getHandler());
    const decision = readAlong
      ? await this.deps.call('redis', async () => {
          const pipeline = this.redis.pipeline();
          const decodeDecision = this.bucket.queueTake(pipeline, bucketKey, limit);
          const decodeRead = readAlong(req, pipeline);
          const replies = (await pipeline.exec())!;
          const taken = decodeDecision(replies[0]);
          if (taken.allowed && decodeRead) readAlongValues.set(req, decodeRead(replies[1]));
          return taken;
        })
      : await this.deps.call('redis', () => this.bucket.take(bucketKey, limit));
    this.answer(ctx.switchToHttp().getResponse<FastifyReply>(), endpoint, limit, decision);
    return true;
  }

  private answer(reply: FastifyReply, endpoint: EndpointName, limit: BucketLimit, decision: BucketDecision): void {
    void reply.header('X-RateLimit-Limit', `${limit.perMinute}/min; burst=${limit.burst}`);
    if (!decision.allowed) {
      refusals.inc({ endpoint });
      throw ApiError.rateLimited(decision.retryAfterSeconds);
    }
    void reply.header('X-RateLimit-Remaining', String(Math.floor(decision.remaining)));
  }
}
