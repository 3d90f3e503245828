import { DynamicModule, InjectionToken, Module } from '@nestjs/common';

/** A readiness probe of one dependency: resolves when usable, rejects (or times out) when not. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

/** While the process drains on SIGTERM, readiness answers 503 so the load balancer stops sending work. */
export const shutdownState = { draining: false };

function withTimeout(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<void>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** How long one readiness check may take before its dependency counts as down. */
export const READINESS_CHECK_TIMEOUT_MS = 1000;

/** Runs every check at once, each under READINESS_CHECK_TIMEOUT_MS: `[name, up or down with the error]`. */
export function runReadinessChecks(
  checks: readonly ReadinessCheck[],
): Promise<Array<readonly [string, { status: 'up' } | { status: 'down'; error: string }]>> {
  return Promise.all(
    checks.map(async (c) => {
      try {
        await withTimeout(c.check(), READINESS_CHECK_TIMEOUT_MS);
        return [c.name, { status: 'up' }] as const;
      } catch (e) {
        return [c.name, { status: 'down', error: (e as Error).message }] as const;
      }
    }),
  );
}

/**
 * The app's readiness checks (READINESS_CHECKS), which `/health/ready` on the
 * management port runs (management.ts) and a worker's consumer pauses on.
 */
@Module({})
export class HealthModule {
  static forRoot(checks?: { inject: InjectionToken[]; useFactory: (...deps: never[]) => ReadinessCheck[] }): DynamicModule {
    return {
      module: HealthModule,
      providers: [
        checks
          ? { provide: READINESS_CHECKS, inject: checks.inject, useFactory: checks.useFactory }
          : { provide: READINESS_CHECKS, useValue: [] },
      ],
      exports: [READINESS_CHECKS],
    };
  }
}
