import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Redis from 'ioredis';
import { DEFAULT_RATE_LIMITS, EndpointName } from '@lr/contracts';
import { counter } from '@lr/observability';
import { REDIS_CLIENT } from '@lr/platform';
import { BucketDecision, BucketLimit, TokenBucket } from '@lr/redis';
import { ApiError } from '../http/api-error';
import { Dependencies } from '../http/dependencies';
import { ENDPOINT_KEY } from './endpoint.decorator';

const refusals = counter('gateway_rate_limited_total', 'Calls refused with 429, by endpoint', ['endpoint']);

const READ_ALONG_KEY = 'lr:read-along';
const readAlongValues = new WeakMap<FastifyRequest, unknown>();

/**
 * Sends the Redis read a handler needs on `redis` at once and answers it, or
 * undefined when the request needs no read (the handler then answers without
 * one, e.g. 404 for a malformed id).
 */
export type ReadAlong<T> = (req: FastifyRequest, redis: Redis) => Promise<T> | undefined;

/**
 * Lets the rate limit's Redis round trip also carry the handler's hot read
 * (polls: the token-bucket script and the search's HGETALL; submits: the shown
 * result). The read is sent right behind the take on the same connection,
 * before either answer is back, so both share one round trip. The handler gets
 * the value with `readAlongValue(req)`; a refused call reads nothing it can see.
 */
export const RateLimitReadsAlong = <T>(read: ReadAlong<T>) => SetMetadata(READ_ALONG_KEY, read);

/** What the handler's ReadAlong read; undefined when it queued nothing. */
export function readAlongValue<T>(req: FastifyRequest): T | undefined {
  return readAlongValues.get(req) as T | undefined;
}

/**
 * The contract's per-key, per-endpoint budget (Limits). Runs after ApiKeyGuard (or BuyerKeyGuard);
 * every authenticated call counts, test calls and refused ones included. As a guard it reads the
 * endpoint and the read along from the handler's decorators; `check` is its whole work on a
 * request, for the routes Nest does not run (the poll's: poll-results.route.ts).
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
    const readAlong = this.reflector.get<ReadAlong<unknown> | undefined>(READ_ALONG_KEY, ctx.getHandler());
    const http = ctx.switchToHttp();
    await this.check(http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), endpoint, readAlong);
    return true;
  }

  /**
   * Takes a token of the caller's `endpoint` budget (nothing without an endpoint or a caller), with
   * `readAlong` in the same round trip; sets the X-RateLimit-* headers on `reply`, and throws the 429
   * (or the 503 of a failed Redis call) to answer.
   */
  async check(req: FastifyRequest, reply: FastifyReply, endpoint: EndpointName | undefined, readAlong?: ReadAlong<unknown>): Promise<void> {
    const caller = req.principal ?? req.buyer;
    if (!endpoint || !caller) return;
    const limit = caller.limits[endpoint] ?? DEFAULT_RATE_LIMITS[endpoint];
    const bucketKey = `${caller.keyId}:${endpoint}`;
    const decision = readAlong
      ? await this.deps.call('redis', async () => {
          // Two commands written back to back rather than an ioredis pipeline: the same one round trip, and a
          // pipeline's bookkeeping kept a poll's reply alive long enough to be promoted out of the young
          // generation, which cost the gateway more in garbage collection than the pipeline saved (bench/results/performance-history.md).
          const taking = this.bucket.take(bucketKey, limit);
          const reading = readAlong(req, this.redis)?.then(
            (value) => ({ value }),
            (error: unknown) => ({ error }),
          );
          const [taken, read] = await Promise.all([taking, reading]);
          if (taken.allowed && read) {
            if ('error' in read) throw read.error;
            readAlongValues.set(req, read.value);
          }
          return taken;
        })
      : await this.deps.call('redis', () => this.bucket.take(bucketKey, limit));
    this.answer(reply, endpoint, limit, decision);
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
