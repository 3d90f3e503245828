import 'reflect-metadata';
import { DynamicModule, INestApplication, Logger as NestLogger, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyServerOptions } from 'fastify';
import { Logger } from 'nestjs-pino';
import { AppConfig } from '@lr/config';
import { newCorrelationId, withCorrelationId } from './correlation';
import { CONNECTIONS_CHECKING_INTERVAL_MS, limitConnections } from './connections';
import { ensureDefaultMetrics, histogram, HTTP_SECONDS_BUCKETS } from './metrics';
import { READINESS_CHECKS, ReadinessCheck, shutdownState } from './health';
import { ManagementServer, startManagementServer } from './management';
import { ACCESS_LOG_OPTIONS, AccessLogOptions, installAccessLog } from './logger.module';

export interface HttpAppOptions {
  /** Largest request body accepted, in bytes (Fastify answers 413 above it). */
  bodyLimit?: number;
  /** Called with the Fastify-backed Nest app before listen (routes, filters, hooks). */
  configure?: (app: NestFastifyApplication) => void | Promise<void>;
  /** Fastify options only the constructor takes (an app's router limits and its answers to requests that never reach a route). */
  fastify?: Pick<FastifyServerOptions, 'routerOptions' | 'clientErrorHandler' | 'frameworkErrors'>;
  /**
   * Whether the app serves an API on config.httpPort (default true). A worker
   * serves none: its Nest app does not listen, and its one port is the
   * management port.
   */
  api?: boolean;
}

/** A started app: the Nest app, and the management listener (/metrics, /health/*) beside it. */
export interface StartedHttpApp {
  app: NestFastifyApplication;
  management: ManagementServer;
}

/**
 * Creates a Nest app on Fastify with structured logs, Prometheus metrics and
 * graceful shutdown; listens on the app's API port (config.httpPort, unless
 * `api` is false) and serves /metrics and /health/* on its management port
 * (config.managementPort), both on config.host. Every app's main.ts calls this.
 */
export async function startHttpApp(
  module: Type<unknown> | DynamicModule,
  config: AppConfig,
  opts: HttpAppOptions = {},
): Promise<StartedHttpApp> {
  ensureDefaultMetrics(config.app);
  const adapter = new FastifyAdapter({
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    // The correlation id is always the server's own: a caller's X-Request-Id is only logged, as client_request_id (correlation.ts).
    genReqId: newCorrelationId,
    requestIdHeader: false,
    trustProxy: config.trustProxy,
    http: { connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // No app uses Nest middleware (the access log is a Fastify hook: logger.module.ts), so Fastify's Express
    // bridge is not registered: its hook would run on every request for nothing.
    skipMiddie: true,
    ...opts.fastify,
  });
  limitConnections(adapter.getInstance().server, config.connections);
  // Every answer names its correlation id, and everything the request does runs under it (logs, published messages).
  adapter.getInstance().addHook('onRequest', (req, reply, done) => {
    void reply.header('X-Request-Id', req.id);
    withCorrelationId(req.id, done);
  });
  const requestSeconds = histogram(
    'http_request_duration_seconds',
    'HTTP answers by method, route (the pattern; "unmatched" for none) and status',
    ['method', 'route', 'status'],
    HTTP_SECONDS_BUCKETS,
  );
  // While draining, every answer closes its connection: clients reconnect (to another replica), and a
  // request in flight when the listener closes does not leave a kept-alive socket holding up the exit.
  adapter.getInstance().addHook('onSend', (_req, reply, payload, done) => {
    if (shutdownState.draining) void reply.header('Connection', 'close');
    done(null, payload);
  });
  adapter.getInstance().addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    requestSeconds.observe({ method: req.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
  // JSON only (Fastify's own parser, Fastify's body limit): Nest's urlencoded parser and Fastify's
  // text/plain parser would let a wrong Content-Type through; without them it is a 415.
  adapter.getInstance().removeContentTypeParser('text/plain');
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, { bufferLogs: true, bodyParser: false });
  app.useLogger(app.get(Logger));
  installAccessLog(adapter.getInstance(), app.get<AccessLogOptions>(ACCESS_LOG_OPTIONS));
  // app.close() (SIGTERM, or a test's) closes the management listener last, after the API and the consumers
  // (the hook is added now: Fastify takes none once it listens; the listener starts once the app does).
  const started: { management?: ManagementServer } = {};
  adapter.getInstance().addHook('onClose', async () => started.management?.close());
  if (opts.configure) await opts.configure(app);
  if (opts.api ?? true) await app.listen({ port: config.httpPort, host: config.host });
  else {
    await app.init();
    // listen() writes the lines logged during start-up (bufferLogs); an app that does not listen writes them here.
    app.flushLogs();
  }
  const checks = app.get<ReadinessCheck[]>(READINESS_CHECKS, { strict: false });
  const management = await startManagementServer(config, () => checks);
  started.management = management;
  installGracefulShutdown(app, config);
  return { app, management };
}

/**
 * On SIGTERM/SIGINT (docs/observability.md, "Graceful shutdown"):
 * 1. readiness answers 503 at once, while everything else keeps working for
 *    SHUTDOWN_DELAY_MS (a load balancer stops sending new work meanwhile);
 * 2. app.close(): message consumers stop taking messages and finish the ones
 *    in flight (at most SHUTDOWN_GRACE_MS; unfinished ones go back to their
 *    queue), the HTTP server stops accepting and finishes the requests in
 *    flight, then the connections to RabbitMQ, PostgreSQL and Redis close;
 * 3. exit 0. If that takes longer than delay + grace + 2 s, exit 1: unacked
 *    messages return to their queue, so nothing is lost either way.
 */
function installGracefulShutdown(app: INestApplication, config: AppConfig): void {
  let started = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (started) return;
    started = true;
    shutdownState.draining = true;
    const log = new NestLogger('Shutdown');
    const began = Date.now();
    log.log({
      msg: 'draining: readiness fails; stopping after the delay',
      signal,
      delay_ms: config.shutdownDelayMs,
      grace_ms: config.shutdownGraceMs,
    });
    const hardStop = setTimeout(
      () => {
        log.error({ msg: 'shutdown took too long; exiting', duration_ms: Date.now() - began });
        process.exit(1);
      },
      config.shutdownDelayMs + config.shutdownGraceMs + 2000,
    );
    hardStop.unref();
    const stop = async () => {
      if (config.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
      await app.close();
      log.log({ msg: 'stopped', duration_ms: Date.now() - began });
      process.exit(0);
    };
    stop().catch((e: unknown) => {
      log.error({ msg: 'shutdown failed', err: String((e as Error)?.stack ?? e) });
      process.exit(1);
    });
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
