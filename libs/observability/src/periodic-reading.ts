/**
 * A value read now and then every `intervalMs` (a gauge fed from a broker or
 * a database): one reading at a time (a refresh during a reading shares it),
 * never throws, and reports a run of failures once, at its first (the last
 * value stays meanwhile). `read` answers undefined when it cannot ask now
 * (say, not connected): neither a value nor a failure.
 */
export class PeriodicReading<T> {
  private timer: NodeJS.Timeout | undefined;
  private pending: Promise<T | undefined> | undefined;
  private failing = false;

  constructor(
    private readonly intervalMs: number,
    private readonly read: () => Promise<T | undefined>,
    private readonly onFirstFailure: (e: unknown) => void,
  ) {}

  /** Reads now, then every interval. Idempotent. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.refresh(), this.intervalMs);
    this.timer.unref();
    void this.refresh();
  }

  /** One reading (shared with one under way): the value, or undefined when none could be read. */
  refresh(): Promise<T | undefined> {
    this.pending ??= this.attempt().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** No new readings; waits for one under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.pending;
  }

  private async attempt(): Promise<T | undefined> {
    try {
      const value = await this.read();
      if (value !== undefined) this.failing = false;
      return value;
    } catch (e) {
      if (!this.failing) this.onFirstFailure(e);
      this.failing = true;
      return undefined;
    }
  }
}
