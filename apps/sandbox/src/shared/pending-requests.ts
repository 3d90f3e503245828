import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { sandboxPendingRequests } from './sandbox-metrics';

/** How a wait ended: its time passed, the client went away, or the sandbox is shutting down. */
export type WaitEnd = 'elapsed' | 'client_gone' | 'shutdown';

/**
 * Every request the sandbox is making wait (a delay, or outcome=timeout's
 * "never") is registered here, so shutdown can release them at once instead of
 * keeping the server open, and a client that gives up frees its wait.
 */
@Injectable()
export class PendingRequests implements BeforeApplicationShutdown {
  private readonly releases = new Set<() => void>();
  private closing = false;

  /**
   * Resolves after `ms` (never, when null) or when `until` settles, whichever is
   * first, unless the client closes the connection or the sandbox shuts down.
   */
  wait(res: ServerResponse, ms: number | null, until?: Promise<unknown>): Promise<WaitEnd> {
    if (this.closing) return Promise.resolve('shutdown');
    if (res.destroyed || res.socket?.destroyed) return Promise.resolve('client_gone');
    if (ms === 0) return Promise.resolve('elapsed');
    const gauge = sandboxPendingRequests();
    gauge.inc();
    return new Promise<WaitEnd>((resolve) => {
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (end: WaitEnd) => {
        if (done) return;
        done = true;
        if (timer) clearTimeout(timer);
        res.off('close', onClose);
        this.releases.delete(onShutdown);
        gauge.dec();
        resolve(end);
      };
      const onClose = () => finish('client_gone');
      const onShutdown = () => finish('shutdown');
      res.once('close', onClose);
      this.releases.add(onShutdown);
      if (ms !== null) timer = setTimeout(() => finish('elapsed'), ms);
      until?.then(
        () => finish('elapsed'),
        () => finish('elapsed'),
      );
    });
  }

  /**
   * Ends a request whose wait did not elapse. A held (never-answering) request
   * stays unanswered: its connection is closed, as a dead server's would be. A
   * delayed one is answered 503 on shutdown. A gone client needs nothing.
   */
  abandon(reply: FastifyReply, end: Exclude<WaitEnd, 'elapsed'>, held: boolean): void {
    if (end === 'shutdown' && !held) {
      void reply.code(503).header('connection', 'close').send({ error: 'SANDBOX_SHUTTING_DOWN', message: 'The sandbox is shutting down' });
      return;
    }
    reply.hijack();
    if (end === 'shutdown') reply.raw.destroy();
  }

  get size(): number {
    return this.releases.size;
  }

  beforeApplicationShutdown(): void {
    this.closing = true;
    for (const release of [...this.releases]) release();
  }
}
