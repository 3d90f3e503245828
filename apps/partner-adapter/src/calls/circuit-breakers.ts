import { Inject, Injectable, Logger, OnModuleDestroy, Optional } from '@nestjs/common';
import CircuitBreaker from 'opossum';
import type { PartnerRef } from '@lr/contracts';
import { PartnerCircuitOpenError, PartnerConfigError } from '../adapters/partner-errors';
import { partnerMetrics } from '../partner-metrics';

/** The opossum settings every partner's breaker gets. */
export interface BreakerSettings {
  /** Opens when more than this share of the calls in the rolling window failed... */
  errorThresholdPercentage: number;
  /** ...and the window holds at least this many calls. */
  volumeThreshold: number;
  /** The rolling window, ms. */
  rollingCountTimeout: number;
  /** How long it stays open before letting one trial call through (half-open), ms. */
  resetTimeout: number;
}

export const DEFAULT_BREAKER_SETTINGS: Readonly<BreakerSettings> = Object.freeze({
  errorThresholdPercentage: 50,
  volumeThreshold: 5,
  rollingCountTimeout: 10_000,
  resetTimeout: 5_000,
});

/** Provide a Partial<BreakerSettings> under this token to change them (tests use a short resetTimeout). */
export const BREAKER_SETTINGS = Symbol('BREAKER_SETTINGS');

export type BreakerState = 'closed' | 'open' | 'half_open';

type Call = () => Promise<unknown>;
type Breaker = CircuitBreaker<[Call], unknown>;

/**
 * One circuit breaker per partner id, made on the partner's first call. A
 * breaker wraps whatever call it is given (search, later submit), so every
 * call to a partner counts toward one state. opossum's own timeout is off:
 * callers abort at their deadline, and the abort is the failure it counts.
 */
@Injectable()
export class PartnerCircuitBreakers implements OnModuleDestroy {
  private readonly log = new Logger(PartnerCircuitBreakers.name);
  private readonly settings: BreakerSettings;
  private readonly breakers = new Map<string, { breaker: Breaker; partner: PartnerRef }>();

  constructor(@Optional() @Inject(BREAKER_SETTINGS) settings?: Partial<BreakerSettings>) {
    this.settings = { ...DEFAULT_BREAKER_SETTINGS, ...settings };
  }

  /** Runs `call` under the partner's breaker; PartnerCircuitOpenError, without running it, while open. */
  async fire<T>(partner: PartnerRef, call: () => Promise<T>): Promise<T> {
    try {
      return (await this.breakerOf(partner).fire(call)) as T;
    } catch (e) {
      if ((e as { code?: unknown }).code === 'EOPENBREAKER') throw new PartnerCircuitOpenError(partner.name);
      throw e;
    }
  }

  state(partnerId: string): BreakerState {
    const entry = this.breakers.get(partnerId);
    if (!entry || entry.breaker.closed) return 'closed';
    return entry.breaker.halfOpen ? 'half_open' : 'open';
  }

  onModuleDestroy(): void {
    for (const { breaker } of this.breakers.values()) breaker.shutdown();
    this.breakers.clear();
  }

  private breakerOf(partner: PartnerRef): Breaker {
    const known = this.breakers.get(partner.id);
    if (known) {
      known.partner = partner; // the catalog may have renamed it: metrics and logs follow
      return known.breaker;
    }
    const breaker: Breaker = new CircuitBreaker((call: Call) => call(), {
      ...this.settings,
      timeout: false,
      // Settings we cannot use (an unset environment variable) are ours to fix: the partner was not called.
      errorFilter: (e: unknown) => e instanceof PartnerConfigError,
      name: partner.id,
      enableSnapshots: false,
      rollingPercentilesEnabled: false,
    });
    const entry = { breaker, partner };
    this.breakers.set(partner.id, entry);
    this.watch(entry);
    return breaker;
  }

  private watch(entry: { breaker: Breaker; partner: PartnerRef }): void {
    const fields = () => ({ partner: entry.partner.name, partner_id: entry.partner.id });
    partnerMetrics.circuitOpen.set({ partner: entry.partner.name }, 0);
    entry.breaker.on('open', () => {
      partnerMetrics.circuitOpen.set({ partner: entry.partner.name }, 1);
      this.log.warn({ msg: 'partner circuit opened: calls fail fast', ...fields(), reset_after_ms: this.settings.resetTimeout });
    });
    entry.breaker.on('halfOpen', () => this.log.log({ msg: 'partner circuit half-open: the next call is a trial', ...fields() }));
    entry.breaker.on('close', () => {
      partnerMetrics.circuitOpen.set({ partner: entry.partner.name }, 0);
      this.log.log({ msg: 'partner circuit closed', ...fields() });
    });
  }
}
