import 'reflect-metadata';
import { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { AppConfig } from '@lr/config';
import { ensureDefaultMetrics } from './metrics';
import { requestIdFor } from './logger.module';
import { shutdownState } from './health';

export interface HttpAppOptions {
  /** Largest request body accepted, in bytes (Fastify answers 413 above it). */
  bodyLimit?: number;
  /** Called with the Fastify-backed Nest app before listen (routes, filters, hooks). */
  configure?: (app: NestFastifyApplication) => void | Promise<void>;
}

/**
 * Creates a Nest app on Fastify with structured logs, Prometheus metrics and
 * graceful shutdown, and listens on the app's port. Every app's main.ts calls this.
 */
export async function startHttpApp(module: Type<unknown> | DynamicModule, config: AppConfig, opts: HttpAppOptions = {}): Promise<NestFastifyApplication> {
  ensureDefaultMetrics(config.app);
  const adapter = new FastifyAdapter({
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    genReqId: (req: import('node:http').IncomingMessage) => requestIdFor(req),
    requestIdHeader: false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  // JSON only (Fastify's own parser, Fastify's body limit): Nest's urlencoded parser and Fastify's
  // text/plain parser would let a wrong Content-Type through; without them it is a 415.
  adapter.getInstance().removeContentTypeParser('text/plain');
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, { bufferLogs: true, bodyParser: false });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  installDrainOnSignal(app, config);
  if (opts.configure) await opts.configure(app);
  await app.listen({ port: config.httpPort, host: '0.0.0.0' });
  return app;
}

/**
 * On SIGTERM/SIGINT: readiness turns 503 at once, then Nest's shutdown hooks run
 * (consumers stop taking work and finish in-flight messages, connections close).
 * If that takes longer than SHUTDOWN_GRACE_MS the process exits anyway: unacked
 * messages return to their queue, so nothing is lost.
 */
function installDrainOnSignal(app: INestApplication, config: AppConfig): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      shutdownState.draining = true;
      const timer = setTimeout(() => process.exit(1), config.shutdownGraceMs + 2000);
      timer.unref();
    });
  }
}
