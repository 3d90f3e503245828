import { Global, Inject, Injectable, Logger, Module, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@lr/config';
import { AmqpConnection } from '@lr/messaging';
import { counter, gauge, ReadinessCheck } from '@lr/observability';
import { pingDatabase } from '@lr/persistence';
import { REDIS_CLIENT } from '@lr/platform';
import { ApiError } from './api-error';

export type DependencyName = 'postgres' | 'redis' | 'rabbitmq';
export const DEPENDENCY_NAMES: readonly DependencyName[] = ['postgres', 'redis', 'rabbitmq'];

/**
 * How long a key or campaign the gateway read from PostgreSQL may still be used
 * while PostgreSQL is unavailable (only for what it serves without PostgreSQL:
 * polls). Revocations and catalog changes keep arriving over Redis meanwhile
 * and drop entries at once; this bounds only what an announcement could not say.
 */
export const SERVE_FROM_MEMORY_MAX_MS = 10 * 60_000;

const fromMemory = counter(
  'gateway_served_from_memory_total',
  'Lookups answered from memory beyond their cache time because PostgreSQL was unavailable, by what',
  ['what'],
);

/**
 * `fresh()` when its dependency answers; while it is unavailable, the entry
 * held in memory (at most SERVE_FROM_MEMORY_MAX_MS old) if `held()` still
 * returns one; otherwise the DependencyFailure (503).
 */
export async function orFromMemory<T>(
  what: string,
  fresh: () => Promise<T>,
  held: () => { value: T; at: number } | undefined,
  now = Date.now(),
): Promise<{ value: T; fromMemory: boolean }> {
  try {
    return { value: await fresh(), fromMemory: false };
  } catch (e) {
    const entry = e instanceof DependencyFailure ? held() : undefined;
    if (!entry || now - entry.at > SERVE_FROM_MEMORY_MAX_MS) throw e;
    fromMemory.inc({ what });
    return { value: entry.value, fromMemory: true };
  }
}

/** How often each dependency is probed. */
export const PROBE_INTERVAL_MS = 200;
/** A probe (SELECT 1, PING, a confirmed publish) slower than this marks its dependency down. */
export const PROBE_TIMEOUT_MS = 800;

const upGauge = gauge('gateway_dependency_up', '1 while the gateway reaches the dependency, 0 while it answers 503 for it at once', [
  'dependency',
]);
const outages = counter('gateway_dependency_outages_total', 'Times a dependency was found down by the gateway', ['dependency']);
const refusedAtOnce = counter(
  'gateway_dependency_refusals_total',
  'Calls answered 503 without trying, because their dependency was known to be down',
  ['dependency'],
);

/**
 * The gateway's view of PostgreSQL, Redis and RabbitMQ, and the one way the
 * request path calls them.
 *
 * - `call(name, fn)` runs one call under a deadline (DEPENDENCY_TIMEOUT_MS):
 *   a failure or a missed deadline is 503 UNAVAILABLE (retryable), never a hang
 *   or a 500. While the dependency is known to be down the call is not even
 *   tried: 503 at once, so a hung dependency costs callers nothing.
 * - Each dependency is probed every PROBE_INTERVAL_MS with a trivial round
 *   trip; PostgreSQL and Redis not while they answered a call within that
 *   interval (under traffic the calls themselves are the probes; an idle
 *   gateway still probes). One that takes longer than PROBE_TIMEOUT_MS, or
 *   fails twice in a row, is down until a probe passes again. This is also what tells the gateway about an outage its
 *   own request path does not see (a search served from cached key and campaign
 *   still needs PostgreSQL in the search-orchestrator): `assertUp` refuses
 *   such work, and `onDown` ends a wait for a worker's reply that would only
 *   end at its timeout.
 */
@Injectable()
export class Dependencies implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('Dependencies');
  private readonly downSince = new Map<DependencyName, number>();
  private readonly inFlight = new Set<DependencyName>();
  private readonly failedInARow = new Map<DependencyName, number>();
  private readonly downListeners = new Set<(name: DependencyName) => void>();
  private readonly probes: Record<DependencyName, () => Promise<unknown>>;
  /** When each dependency last answered a call (epoch ms; RabbitMQ: never taken as a probe). */
  private readonly answeredAt: Record<DependencyName, () => number>;
  private readonly callAnsweredAt = new Map<DependencyName, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    ds: DataSource,
    @Inject(REDIS_CLIENT) redis: Redis,
    amqp: AmqpConnection,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.probes = {
      postgres: () => pingDatabase(ds),
      redis: () => redis.ping(),
      rabbitmq: () => amqp.ping(PROBE_TIMEOUT_MS),
    };
    const answered = (name: DependencyName) => () => this.callAnsweredAt.get(name) ?? 0;
    this.answeredAt = {
      postgres: answered('postgres'),
      redis: answered('redis'),
      // Always probed: a stalled broker must end the waits for workers' replies within a second or so (their
      // replies, not a publish, are what never comes), and a confirm seen just before the stall would delay that.
      rabbitmq: () => 0,
    };
    for (const name of DEPENDENCY_NAMES) upGauge.set({ dependency: name }, 1);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => DEPENDENCY_NAMES.forEach((name) => this.probe(name)), PROBE_INTERVAL_MS);
    this.timer.unref();
    DEPENDENCY_NAMES.forEach((name) => this.probe(name));
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  isUp(name: DependencyName): boolean {
    return !this.downSince.has(name);
  }

  /**
   * One call to a dependency, under a deadline (default DEPENDENCY_TIMEOUT_MS).
   * Any failure or a missed deadline is DependencyFailure (503); ApiErrors thrown
   * inside pass through. Refused at once while the dependency is known to be
   * down, and given up as soon as a probe finds it down meanwhile.
   */
  call<T>(name: DependencyName, fn: () => Promise<T>, timeoutMs = this.config.dependencyTimeoutMs): Promise<T> {
    try {
      this.assertUp(name);
    } catch (e) {
      return Promise.reject(e);
    }
    // One promise settled by whichever comes first (the answer, the deadline, the dependency found down): every
    // request makes a call or two, and racing promises built for each was a measurable share of a poll.
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const end = (): boolean => {
        if (settled) return false;
        settled = true;
        clearTimeout(deadline);
        this.downListeners.delete(onDown);
        return true;
      };
      const onDown = (down: DependencyName) => {
        if (down === name && end()) reject(new DependencyFailure(name, new Error(`${name} went down during the call`)));
      };
      // The deadline yields once to pending I/O before it fires, so an answer that arrived while the event loop was busy still wins.
      const deadline = setTimeout(
        () =>
          setImmediate(
            () => end() && reject(new DependencyFailure(name, new DeadlineMissed(`${name} did not answer within ${timeoutMs} ms`))),
          ),
        timeoutMs,
      );
      this.downListeners.add(onDown);
      const answered = (value: T) => {
        if (!end()) return;
        this.callAnsweredAt.set(name, Date.now());
        this.failedInARow.delete(name);
        resolve(value);
      };
      const failed = (e: unknown) => end() && reject(e instanceof ApiError ? e : new DependencyFailure(name, e));
      try {
        fn().then(answered, failed);
      } catch (e) {
        failed(e);
      }
    });
  }

  /** 503 at once when one of `names` is known to be down. */
  assertUp(...names: DependencyName[]): void {
    for (const name of names) {
      if (this.downSince.has(name)) {
        refusedAtOnce.inc({ dependency: name });
        throw new DependencyFailure(name, new Error(`${name} is down (since ${new Date(this.downSince.get(name)!).toISOString()})`), true);
      }
    }
  }

  /**
   * Resolves with the first of `names` found down, now or from now on (never rejects);
   * `cancel()` stops listening. For racing a wait that only a timeout would end.
   */
  onDown(names: readonly DependencyName[]): { promise: Promise<DependencyName>; cancel(): void } {
    let listener: ((name: DependencyName) => void) | undefined;
    const promise = new Promise<DependencyName>((resolve) => {
      listener = (name) => {
        if (names.includes(name)) resolve(name);
      };
      this.downListeners.add(listener);
      // Found down before the wait began (between the caller's assertUp and now, e.g. while a publish waited for
      // its confirm): no transition will come, so the wait ends now.
      const already = names.find((name) => this.downSince.has(name));
      if (already) resolve(already);
    });
    return { promise, cancel: () => void this.downListeners.delete(listener!) };
  }

  /**
   * `check` (a readiness check named after a dependency), failing also while
   * this gateway still counts that dependency as down: /health/ready says 200
   * only when the gateway serves.
   */
  readiness(check: ReadinessCheck): ReadinessCheck {
    return {
      name: check.name,
      check: async () => {
        await check.check();
        if (this.downSince.has(check.name as DependencyName))
          throw new Error(`the gateway has not seen ${check.name} answer its probe yet`);
      },
    };
  }

  /**
   * One probe of `name`, unless the last one is still running (a hung
   * dependency gets one probe at a time) or a call found it answering within
   * the interval (an up dependency only: a down one is never called).
   */
  private probe(name: DependencyName): void {
    if (this.inFlight.has(name)) return;
    if (!this.downSince.has(name) && Date.now() - this.answeredAt[name]() < PROBE_INTERVAL_MS) return;
    this.inFlight.add(name);
    const run = this.probes[name]();
    run.then(
      () => this.inFlight.delete(name),
      () => this.inFlight.delete(name),
    );
    withDeadline(run, PROBE_TIMEOUT_MS, `no answer within ${PROBE_TIMEOUT_MS} ms`).then(
      () => {
        this.failedInARow.delete(name);
        this.markUp(name);
      },
      (e: unknown) => {
        // A hang is an outage at once. An error needs a second one in a row: a single one may be
        // a pooled connection that died with an outage already over (the pool then replaces it).
        const failures = (this.failedInARow.get(name) ?? 0) + 1;
        this.failedInARow.set(name, failures);
        if (e instanceof DeadlineMissed || failures >= 2) this.markDown(name, e);
      },
    );
  }

  private markUp(name: DependencyName): void {
    const since = this.downSince.get(name);
    if (since === undefined) return;
    this.downSince.delete(name);
    upGauge.set({ dependency: name }, 1);
    this.log.log({ msg: 'dependency back', dependency: name, down_ms: Date.now() - since });
  }

  private markDown(name: DependencyName, error: unknown): void {
    if (this.downSince.has(name)) return;
    this.downSince.set(name, Date.now());
    upGauge.set({ dependency: name }, 0);
    outages.inc({ dependency: name });
    this.log.warn({
      msg: 'dependency down; its calls answer 503 until a probe passes',
      dependency: name,
      err: (error as Error)?.message ?? String(error),
    });
    for (const listener of [...this.downListeners]) listener(name);
  }
}

/** Dependencies for the whole gateway (its readiness checks included). */
@Global()
@Module({ providers: [Dependencies], exports: [Dependencies] })
export class DependenciesModule {}

/**
 * `work`, or a rejection after `ms`. The deadline yields once to pending I/O
 * before it rejects, so an answer that arrived while the event loop was busy
 * (a long GC pause, a loaded machine) still wins over the timer.
 */
function withDeadline<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => setImmediate(() => reject(new DeadlineMissed(message))), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

class DeadlineMissed extends Error {}

/** A dependency failed, was too slow, or is known to be down: 503 UNAVAILABLE (retryable); the name and cause are logged, never answered. */
export class DependencyFailure extends ApiError {
  constructor(
    readonly dependencyName: string,
    readonly causeError: unknown,
    /** Refused without trying (the dependency was known to be down): logged at debug, the outage itself was logged once. */
    readonly refusedAtOnce = false,
  ) {
    const base = ApiError.unavailable();
    super(base.httpStatus, base.code, base.reason, base.extra, base.status, base.headers);
  }
}
