import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppConfig } from '@lr/config';
import { CONNECTIONS_CHECKING_INTERVAL_MS, limitConnections } from './connections';
import { ReadinessCheck, runReadinessChecks, shutdownState } from './health';
import { metricsRegistry } from './metrics';

/** The paths the management port answers; nothing else does, and the public port answers none of them. */
export const MANAGEMENT_PATHS = ['/health/live', '/health/ready', '/metrics'] as const;

/** A running management listener. */
export interface ManagementServer {
  server: Server;
  /** The port it listens on (the one asked for, or the one the system picked for 0). */
  port: number;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));

/**
 * `/health/live` (the process runs), `/health/ready` (its own dependencies
 * answer, and it is not draining) and `/metrics` (Prometheus text). Probes and
 * scrapes are not logged and not counted in http_request_duration_seconds.
 */
async function answer(req: IncomingMessage, res: ServerResponse, checks: () => readonly ReadinessCheck[]): Promise<void> {
  const path = (req.url ?? '').split('?')[0];
  if (!(MANAGEMENT_PATHS as readonly string[]).includes(path)) return json(res, 404, { status: 'not_found' });
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return json(res, 405, { status: 'method_not_allowed' });
  }
  if (path === '/health/live') return json(res, 200, { status: 'ok' });
  if (path === '/metrics') return send(res, 200, metricsRegistry.contentType, await metricsRegistry.metrics());
  const results = await runReadinessChecks(checks());
  const ok = !shutdownState.draining && results.every(([, r]) => r.status === 'up');
  json(res, ok ? 200 : 503, { status: ok ? 'ok' : shutdownState.draining ? 'draining' : 'down', checks: Object.fromEntries(results) });
}

/**
 * Serves the management paths on the app's management port (config.managementPort,
 * on config.host), apart from any API: a public port never answers them
 * (docs/observability.md, The management port). A plain Node server: three GET
 * paths need no framework, and its limits are the API's (limitConnections).
 */
export async function startManagementServer(config: AppConfig, checks: () => readonly ReadinessCheck[]): Promise<ManagementServer> {
  const server = createServer({ connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS }, (req, res) => {
    answer(req, res, checks).catch((e: unknown) => {
      if (!res.headersSent) json(res, 500, { status: 'error', error: (e as Error)?.message ?? String(e) });
      else res.destroy();
    });
  });
  limitConnections(server, config.connections);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.managementPort, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
