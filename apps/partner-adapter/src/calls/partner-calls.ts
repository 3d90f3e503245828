import { Injectable } from '@nestjs/common';
import type { PartnerRef } from '@lr/contracts';
import { PartnerAdapterRegistry } from '../adapters/adapter-registry';
import type { PartnerAdapter } from '../adapters/partner-adapter';
import { PartnerCircuitBreakers } from './circuit-breakers';
import { withDeadline } from './deadline';

/**
 * Every call to a partner goes through here: the catalog's adapter, the
 * partner's circuit breaker, and a deadline that aborts the call. Calls share
 * nothing but their partner's breaker, so a slow partner never delays another.
 */
@Injectable()
export class PartnerCalls {
  constructor(
    private readonly adapters: PartnerAdapterRegistry,
    private readonly breakers: PartnerCircuitBreakers,
  ) {}

  /**
   * Throws UnknownAdapterError (the partner is not called, its breaker not
   * touched), PartnerCircuitOpenError (not called), PartnerTimeoutError after
   * deadlineMs, or the adapter's PartnerHttpError / PartnerProtocolError.
   */
  run<T>(partner: PartnerRef, deadlineMs: number, call: (adapter: PartnerAdapter, signal: AbortSignal) => Promise<T>): Promise<T> {
    const adapter = this.adapters.get(partner.adapter);
    return this.breakers.fire(partner, () => withDeadline(deadlineMs, (signal) => call(adapter, signal)));
  }
}
