import { writeFileSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '@lr/config';
import { GatewayModule } from '../gateway.module';
import { buildOpenApiDocument } from './setup';

/**
 * The document the gateway serves at /docs-json, built by the same code
 * (buildOpenApiDocument over GatewayModule) without a running system: in Nest's
 * preview mode the modules and their controllers are scanned but no provider
 * is created, so nothing connects to PostgreSQL, Redis or RabbitMQ. The
 * configuration is the defaults (no environment is read); the document does
 * not depend on it.
 */
export async function exportOpenApiDocument(): Promise<string> {
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(loadConfig('gateway', {})), new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return `${JSON.stringify(buildOpenApiDocument(app, GatewayModule), null, 2)}\n`;
  } finally {
    await app.close();
  }
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
