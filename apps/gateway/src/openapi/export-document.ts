import { writeFileSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { AppConfig, loadConfig } from '@lr/config';
import { GatewayModule } from '../gateway.module';
import { buildOpenApiDocument } from './setup';

/**
 * The gateway's OpenAPI document (buildOpenApiDocument over GatewayModule as
 * the document sees it: with the poll's description, whose route is a plain
 * Fastify route), built without a running system: in Nest's preview mode the
 * modules and their controllers are scanned but no provider is created and
 * no route registered, so nothing connects to PostgreSQL, Redis or RabbitMQ.
 * The gateway serves it at /docs-json; the document does not depend on the
 * configuration.
 *
 * `silent` is for the exporter alone: Nest's `logger` option replaces the
 * process-wide logger, so the running gateway must not pass it, or every
 * Nest logger of the gateway (the outage warnings among them) would be
 * silenced from start-up on.
 */
export async function gatewayOpenApiDocument(config: AppConfig, { silent = false } = {}): Promise<OpenAPIObject> {
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(config, { document: true }), new FastifyAdapter(), {
    preview: true,
    abortOnError: false,
    ...(silent ? { logger: false as const } : {}),
  });
  try {
    return buildOpenApiDocument(app, GatewayModule);
  } finally {
    await app.close();
  }
}

/** The document as committed (packages/client/openapi.json), with the default configuration (no environment is read). */
export async function exportOpenApiDocument(): Promise<string> {
  return `${JSON.stringify(await gatewayOpenApiDocument(loadConfig('gateway', {}), { silent: true }), null, 2)}\n`;
}

/** `node dist/apps/gateway/src/openapi/export-document.js [file]`: the document to the file, or to stdout. */
if (require.main === module) {
  exportOpenApiDocument()
    .then((text) => {
      const file = process.argv[2];
      if (file) writeFileSync(file, text);
      else process.stdout.write(text);
    })
    .catch((e: unknown) => {
      process.stderr.write(`openapi export failed: ${String((e as Error)?.stack ?? e)}\n`);
      process.exit(1);
    });
}
