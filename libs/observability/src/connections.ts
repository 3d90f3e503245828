import type { Server } from 'node:http';
import type { AppConfig } from '@lr/config';
import { counter } from './metrics';

/** How often Node looks for requests past their header or request deadline (its default, 30 s, let a slow body live 30 s too long). */
export const CONNECTIONS_CHECKING_INTERVAL_MS = 1000;

const refused = counter(
  'http_connections_refused_total',
  'Connections closed at once: their client address already held MAX_CONNECTIONS_PER_ADDRESS',
);

/**
 * A client's hold on a listener, bounded (docs/security.md, The front door):
 * - the whole request, headers and body, within `requestTimeoutMs`, its
 *   headers within `headersTimeoutMs` (Node answers 408 and closes: a body
 *   sent a byte at a time is cut there, whether or not it carries a key);
 * - a connection on which nothing moves for `idleTimeoutMs` is closed;
 * - at most `maxPerAddress` open connections per peer address (0: no cap);
 *   one more is closed at once, before a byte of it is read. The peer is
 *   the TCP peer: behind a proxy, the proxy (raise the cap there).
 * Node checks the two deadlines every `connectionsCheckingInterval`: create
 * the server with CONNECTIONS_CHECKING_INTERVAL_MS.
 */
export function limitConnections(server: Server, limits: AppConfig['connections']): void {
  server.requestTimeout = limits.requestTimeoutMs;
  server.headersTimeout = limits.headersTimeoutMs;
  server.setTimeout(limits.idleTimeoutMs);
  if (limits.maxPerAddress <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const address = socket.remoteAddress ?? '';
    const held = open.get(address) ?? 0;
    if (held >= limits.maxPerAddress) {
      refused.inc();
      socket.destroy();
      return;
    }
    open.set(address, held + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
