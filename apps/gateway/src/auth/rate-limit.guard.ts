import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_RATE_LIMITS, EndpointName } from '@lr/contracts';
import { counter } from '@lr/observability';
import { TokenBucket } from '@lr/redis';
import { ApiError } from '../http/api-error';
import { Dependencies } from '../http/dependencies';
import { ENDPOINT_KEY } from './endpoint.decorator';

const refusals = counter('gateway_rate_limited_total', 'Calls refused with 429, by endpoint', ['endpoint']);

/**
 * The contract's per-key, per-endpoint budget (Limits). Runs after ApiKeyGuard;
 * every authenticated call counts, test calls and refused ones included.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly bucket: TokenBucket,
    private readonly deps: Dependencies,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const endpoint = this.reflector.get<EndpointName | undefined>(ENDPOINT_KEY, ctx.getHandler());
    const req = ctx.switchToHttp().getRequest<FastifyRequest>();
    if (!endpoint || !req.principal) return true;
    const limit = req.principal.limits[endpoint] ?? DEFAULT_RATE_LIMITS[endpoint];
    const decision = await this.deps.call('redis', () => this.bucket.take(`${req.principal!.keyId}:${endpoint}`, limit));
    const reply = ctx.switchToHttp().getResponse<FastifyReply>();
    void reply.header('X-RateLimit-Limit', `${limit.perMinute}/min; burst=${limit.burst}`);
    if (!decision.allowed) {
      refusals.inc({ endpoint });
      throw ApiError.rateLimited(decision.retryAfterSeconds);
    }
    void reply.header('X-RateLimit-Remaining', String(Math.floor(decision.remaining)));
    return true;
  }
}
