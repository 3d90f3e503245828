import { BrokerUnavailableError } from './errors';

interface Closable {
  once(event: 'close', listener: () => void): unknown;
}

/**
 * The publishing channel once its setup (topology, reply queue) has finished,
 * or nothing while the broker is away. A caller waits for it until its
 * deadline, so a short reconnect is bridged; but once the broker has been away
 * for the whole fail-fast window a caller is refused at once: during an outage
 * the gateway answers 503 immediately instead of queueing work in memory.
 */
export class ReadyChannel<T extends { channel: Closable }> {
  private current: T | undefined;
  private unavailableSince = Date.now();
  private readonly waiters = new Set<() => void>();
  private closed = false;

  constructor(private readonly failFastAfterMs: number) {}

  /** Setup finished on `value.channel`: hand it out until that channel closes. */
  ready(value: T): void {
    this.current = value;
    value.channel.once('close', () => {
      if (this.current !== value) return;
      this.current = undefined;
      this.unavailableSince = Date.now();
    });
    this.wakeAll();
  }

  get(): T | undefined {
    return this.current;
  }

  /** No more channels: every waiter and later caller is refused. */
  close(): void {
    this.closed = true;
    this.current = undefined;
    this.wakeAll();
  }

  async acquire(deadline: number): Promise<T> {
    for (;;) {
      if (this.closed) throw new BrokerUnavailableError('the AMQP connection is closed');
      if (this.current) return this.current;
      const now = Date.now();
      const giveUpAt = Math.min(deadline, this.unavailableSince + this.failFastAfterMs);
      if (now >= giveUpAt) {
        throw new BrokerUnavailableError(`RabbitMQ is unavailable (no usable channel for ${now - this.unavailableSince} ms)`);
      }
      await this.waitForChange(giveUpAt - now);
    }
  }

  private waitForChange(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiters.add(wake);
    });
  }

  private wakeAll(): void {
    for (const wake of [...this.waiters]) wake();
  }
}
