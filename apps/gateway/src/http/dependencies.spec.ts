import type Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@lr/config';
import type { AmqpConnection } from '@lr/messaging';
import { ApiError } from './api-error';
import {
  Dependencies,
  DependencyFailure,
  orFromMemory,
  PROBE_INTERVAL_MS,
  PROBE_TIMEOUT_MS,
  SERVE_FROM_MEMORY_MAX_MS,
} from './dependencies';

type State = 'up' | 'refused' | 'hung' | 'fails once';

/** Probes whose answer the test sets: answered, refused at once, or never answered. */
function dependencies(dependencyTimeoutMs = 1500) {
  const state: Record<'postgres' | 'redis' | 'rabbitmq', State> = { postgres: 'up', redis: 'up', rabbitmq: 'up' };
  const probed = { postgres: 0, redis: 0, rabbitmq: 0 };
  const answer = (name: keyof typeof state) => () => {
    probed[name]++;
    if (state[name] === 'fails once') {
      state[name] = 'up';
      return Promise.reject(new Error('Connection terminated unexpectedly'));
    }
    return state[name] === 'up'
      ? Promise.resolve()
      : state[name] === 'refused'
        ? Promise.reject(new Error('ECONNREFUSED'))
        : new Promise<void>(() => undefined);
  };
  const deps = new Dependencies(
    { query: answer('postgres') } as unknown as DataSource,
    { ping: answer('redis') } as unknown as Redis,
    { ping: answer('rabbitmq') } as unknown as AmqpConnection,
    { dependencyTimeoutMs } as AppConfig,
  );
  deps.onApplicationBootstrap();
  return { deps, state, probed };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (polling) until `condition` holds; generous, so a loaded machine's late timers do not fail the test. */
async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(20);
  }
}

describe('Dependencies (the gateway view of PostgreSQL, Redis, RabbitMQ)', () => {
  let current: Dependencies | undefined;
  afterEach(() => current?.onModuleDestroy());

  it('a refused dependency is down after two probes in a row; its calls then answer 503 without being tried; back once a probe passes', async () => {
    const { deps, state } = dependencies();
    current = deps;
    state.postgres = 'refused';
    await until(() => !deps.isUp('postgres'));
    expect(deps.isUp('redis')).toBe(true);
    let tried = false;
    const refused = await deps.call('postgres', async () => void (tried = true)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DependencyFailure);
    expect((refused as DependencyFailure).refusedAtOnce).toBe(true);
    expect(tried).toBe(false);
    expect((refused as ApiError).httpStatus).toBe(503);

    state.postgres = 'up';
    await until(() => deps.isUp('postgres'));
    await expect(deps.call('postgres', async () => 42)).resolves.toBe(42);
  });

  it('one failed probe alone (a pooled connection that died) is no outage', async () => {
    const { deps, state } = dependencies();
    current = deps;
    state.postgres = 'fails once';
    for (let i = 0; i < 8; i++) {
      expect(deps.isUp('postgres')).toBe(true);
      await sleep(PROBE_INTERVAL_MS / 2);
    }
    expect(state.postgres).toBe('up'); // the failing probe did run
  });

  it('a hung dependency is down once a probe goes unanswered for PROBE_TIMEOUT_MS, and a call waiting on it ends then', async () => {
    const { deps, state } = dependencies(5000);
    current = deps;
    state.redis = 'hung';
    const started = Date.now();
    const waiting = deps.call('redis', () => new Promise<never>(() => undefined)).catch((e: unknown) => e);
    const error = await waiting;
    const ms = Date.now() - started;
    expect(error).toBeInstanceOf(DependencyFailure);
    // Ended by a probe finding Redis down (within an interval and a probe timeout), long before the call's own 5 s deadline.
    expect(ms).toBeGreaterThanOrEqual(PROBE_TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(4000);
    expect(deps.isUp('redis')).toBe(false);
  });

  it('onDown tells a waiter which dependency went down; a cancelled waiter hears nothing', async () => {
    const { deps, state } = dependencies();
    current = deps;
    const heard: string[] = [];
    const cancelled = deps.onDown(['redis']);
    void cancelled.promise.then((n) => heard.push(`cancelled:${n}`));
    cancelled.cancel();
    const waiting = deps.onDown(['postgres', 'rabbitmq']);
    state.rabbitmq = 'refused';
    await expect(waiting.promise).resolves.toBe('rabbitmq');
    state.redis = 'refused';
    await until(() => !deps.isUp('redis'));
    await sleep(50);
    expect(heard).toEqual([]);
    expect(() => deps.assertUp('postgres')).not.toThrow();
    expect(() => deps.assertUp('postgres', 'redis')).toThrow(DependencyFailure);
  });

  it('onDown begun after a dependency was found down ends at once (no transition is coming)', async () => {
    const { deps, state } = dependencies();
    current = deps;
    state.rabbitmq = 'refused';
    await until(() => !deps.isUp('rabbitmq'));
    const late = deps.onDown(['postgres', 'rabbitmq']);
    await expect(late.promise).resolves.toBe('rabbitmq');
    late.cancel();
  });

  it('PostgreSQL or Redis answering a call within the interval is not probed; an idle one is, and RabbitMQ always is', async () => {
    const { deps, probed } = dependencies();
    current = deps;
    const start = { ...probed };
    const until = Date.now() + 6 * PROBE_INTERVAL_MS;
    while (Date.now() < until) {
      await deps.call('postgres', async () => 1);
      await sleep(PROBE_INTERVAL_MS / 4);
    }
    // PostgreSQL answered calls all along: at most a probe that raced a call.
    expect(probed.postgres - start.postgres).toBeLessThanOrEqual(1);
    // Redis was not called: probed every interval. RabbitMQ is probed every interval whatever it answered (a stall must end waits for replies).
    expect(probed.redis - start.redis).toBeGreaterThanOrEqual(3);
    await deps.call('rabbitmq', async () => 1);
    expect(probed.rabbitmq - start.rabbitmq).toBeGreaterThanOrEqual(3);
  });

  it('calls that stop answering no longer stand in for probes: a hang is found as before', async () => {
    const { deps, state } = dependencies(5000);
    current = deps;
    await deps.call('redis', async () => 1);
    state.redis = 'hung';
    const started = Date.now();
    const error = await deps.call('redis', () => new Promise<never>(() => undefined)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyFailure);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(deps.isUp('redis')).toBe(false);
  });

  it('an ApiError thrown inside a call passes through (it is an answer, not an outage)', async () => {
    const { deps } = dependencies();
    current = deps;
    await expect(deps.call('postgres', async () => Promise.reject(ApiError.forbidden()))).rejects.toMatchObject({ httpStatus: 403 });
  });
});

describe('orFromMemory', () => {
  const outage = () => Promise.reject(new DependencyFailure('postgres', new Error('down')));

  it('answers what the dependency answers when it can', async () => {
    await expect(
      orFromMemory(
        'x',
        async () => 'fresh',
        () => ({ value: 'held', at: Date.now() }),
      ),
    ).resolves.toEqual({ value: 'fresh', fromMemory: false });
  });

  it('answers the held entry while the dependency is unavailable, up to SERVE_FROM_MEMORY_MAX_MS old', async () => {
    const now = Date.now();
    await expect(orFromMemory('x', outage, () => ({ value: 'held', at: now - 1000 }), now)).resolves.toEqual({
      value: 'held',
      fromMemory: true,
    });
    await expect(orFromMemory('x', outage, () => ({ value: 'held', at: now - SERVE_FROM_MEMORY_MAX_MS - 1 }), now)).rejects.toBeInstanceOf(
      DependencyFailure,
    );
    await expect(orFromMemory('x', outage, () => undefined, now)).rejects.toBeInstanceOf(DependencyFailure);
  });

  it('never hides an error that is not an outage', async () => {
    const bug = () => Promise.reject(new TypeError('bug'));
    await expect(orFromMemory('x', bug, () => ({ value: 'held', at: Date.now() }))).rejects.toBeInstanceOf(TypeError);
  });
});
