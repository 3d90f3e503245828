import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { counter } from '@lr/observability';
import { TokenBucket } from '@lr/redis';
import { ApiError } from '../http/api-error';
import { Dependencies, DependencyFailure } from '../http/dependencies';

/** Addresses remembered as over their budget at once; past it the memory starts again (Redis still holds every budget). */
const MAX_BLOCKED = 10_000;

const refusals = counter(
  'gateway_unauthenticated_rate_limited_total',
  'Unauthenticated calls refused with 429 by their client address budget',
);

/**
 * The budget of one client address for calls that present no usable key
 * (every 401 of the API: no key, an unknown, revoked or expired key, two
 * keys): UNAUTHENTICATED_PER_MINUTE, refilled continuously, holding at most
 * UNAUTHENTICATED_BURST, in Redis like the per-key limits (TokenBucket, so
 * every gateway shares it). Over it, the call answers the contract's 429
 * RATE_LIMITED with Retry-After instead of its 401.
 *
 * An address found over its budget is also remembered here until its
 * Retry-After has passed: meanwhile a call from it whose key this gateway does
 * not already hold as valid is refused 429 at once, before any PostgreSQL
 * lookup or Redis call (a flood of made-up keys costs neither). A key held as
 * valid still passes: its calls are the key's to budget.
 *
 * Only the refusal path touches Redis: an authenticated call costs nothing
 * here. With Redis down the budget is not kept, and the call answers its 401
 * (refusing a call for want of a counter would make every 401 a 503).
 */
@Injectable()
export class AddressBudget {
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly bucket: TokenBucket,
    private readonly deps: Dependencies,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The 429 to answer at once when `address` is remembered over its budget; undefined when it is not. */
  refusalFor(address: string, now = Date.now()): ApiError | undefined {
    const until = this.blockedUntil.get(address);
    if (until === undefined) return undefined;
    if (until <= now) {
      this.blockedUntil.delete(address);
      return undefined;
    }
    refusals.inc();
    return ApiError.rateLimited(Math.max(1, Math.ceil((until - now) / 1000)));
  }

  /** Spends one call of `address`'s budget on `refusal` (a 401): the 429 to answer instead when the budget is spent, else `refusal`. */
  async spend(address: string, refusal: ApiError, now = Date.now()): Promise<ApiError> {
    const { perMinute, burst } = this.config.unauthenticated;
    let decision;
    try {
      decision = await this.deps.call('redis', () => this.bucket.take(`addr:${address}`, { perMinute, burst }));
    } catch (e) {
      if (e instanceof DependencyFailure) return refusal;
      throw e;
    }
    if (decision.allowed) return refusal;
    if (this.blockedUntil.size >= MAX_BLOCKED) this.blockedUntil.clear();
    this.blockedUntil.set(address, now + decision.retryAfterSeconds * 1000);
    refusals.inc();
    return ApiError.rateLimited(decision.retryAfterSeconds);
  }
}
