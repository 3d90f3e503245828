import { Logger } from '@nestjs/common';
import { ReadinessCheck, runReadinessChecks } from '@lr/observability';
import { messagingMetrics } from './messaging-metrics';

/** While paused, how often the worker's dependencies are checked again. */
export const RESUME_CHECK_INTERVAL_MS = 500;

/**
 * Tells a handler failure that is the message's fault from one caused by an
 * outage of a dependency the worker needs (PostgreSQL, Redis, RabbitMQ: the
 * worker's own readiness checks). After a failure the checks run (one run at a
 * time, shared by every message failing meanwhile); if one is down, the
 * failure is the outage's: the message is put back without counting a try, and
 * the consumer pauses until every check passes again. So an outage, however
 * long, neither burns messages' tries into the dead-letter queue nor spins them
 * through retries; the backlog waits in the queue and is handled once the
 * dependency is back.
 */
export class DependencyGate {
  private checks: readonly ReadinessCheck[] = [];
  private running: Promise<string[]> | undefined;
  private downNow: string[] | undefined;
  private stopped = false;

  constructor(
    private readonly consumer: string,
    private readonly log: Logger,
    private readonly hooks: { pause(): Promise<void>; resume(): Promise<void> },
  ) {
    messagingMetrics.consumerPaused.set({ consumer }, 0);
  }

  /** The dependencies to check (a worker's readiness checks); none: every failure is the message's. */
  watch(checks: readonly ReadinessCheck[]): void {
    this.checks = checks;
  }

  get paused(): boolean {
    return this.downNow !== undefined;
  }

  /** After a handler failed: the dependencies down now (empty: the failure is the message's). Pauses when there are any. */
  async blame(): Promise<string[]> {
    if (this.downNow) return this.downNow;
    if (this.checks.length === 0 || this.stopped) return [];
    const down = await this.check();
    if (down.length > 0 && !this.downNow && !this.stopped) {
      this.downNow = down;
      messagingMetrics.consumerPaused.set({ consumer: this.consumer }, 1);
      this.log.warn({ msg: 'consumer paused: a dependency is down; messages wait in the queue', consumer: this.consumer, down });
      await this.hooks.pause().catch((e: Error) => this.log.warn(`pausing the consumer: ${e.message}`));
      void this.resumeWhenUp();
    }
    return down;
  }

  /** No more pausing or resuming (the transport is closing). */
  stop(): void {
    this.stopped = true;
  }

  private check(): Promise<string[]> {
    this.running ??= runReadinessChecks(this.checks)
      .then((results) => results.filter(([, r]) => r.status === 'down').map(([name]) => name))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async resumeWhenUp(): Promise<void> {
    const since = Date.now();
    for (;;) {
      await new Promise((r) => setTimeout(r, RESUME_CHECK_INTERVAL_MS));
      if (this.stopped) return;
      if ((await this.check()).length === 0) break;
    }
    if (this.stopped) return;
    this.downNow = undefined;
    messagingMetrics.consumerPaused.set({ consumer: this.consumer }, 0);
    this.log.log({ msg: 'consumer resumed: every dependency answers', consumer: this.consumer, paused_ms: Date.now() - since });
    await this.hooks.resume().catch((e: Error) => this.log.warn(`resuming the consumer: ${e.message}; it resumes on the next reconnect`));
  }
}
