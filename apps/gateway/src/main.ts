import { loadConfig } from '@lr/config';
import { startHttpApp } from '@lr/observability';
import { DUPE_CHECK_BODY_LIMIT, DUPE_CHECK_PATH } from './pre-check/pre-check.handler';
import { OPT_OUTS_BODY_LIMIT, OPT_OUTS_PATH } from './opt-outs/opt-outs.handler';
import { authenticateBeforeBody } from './auth/front-door';
import { GatewayModule } from './gateway.module';
import { answerClientError, answerConnect, answerFrameworkError } from './http/client-errors';
import { installJsonBodyParser } from './http/json-body';
import { installSecurityHeaders } from './http/security-headers';
import { gatewayOpenApiDocument } from './openapi/export-document';
import { serveOpenApi } from './openapi/setup';
import { registerPollResults } from './poll-results/poll-results.route';
import { BUYER_RETURNS_BODY_LIMIT, BUYER_RETURNS_PATH } from './return-lead/return-lead.handler';

/** Routes with a body limit of their own (the contract: the pre-check's 16 KB; the opt-out intake's, docs/opt-outs.md; the buyer API's returns, docs/returns.md). */
const BODY_LIMITS: Record<string, number> = {
  [DUPE_CHECK_PATH]: DUPE_CHECK_BODY_LIMIT,
  [OPT_OUTS_PATH]: OPT_OUTS_BODY_LIMIT,
  [BUYER_RETURNS_PATH]: BUYER_RETURNS_BODY_LIMIT,
};

/**
 * The only public HTTP surface: the affiliate API of ../shared/spec/affiliate-api.md, and the buyer API of docs/returns.md,
 * on PORT; /metrics and /health/* answer on MANAGEMENT_PORT only (docs/security.md, The front door).
 */
async function main(): Promise<void> {
  const config = loadConfig('gateway');
  await startHttpApp(GatewayModule.forRoot(config), config, {
    bodyLimit: 256 * 1024,
    fastify: {
      // A path id longer than Fastify's default 100 characters reached no route (405 on a GET); now the
      // handler sees it (authenticated, rate-limited, then 404 like any unknown id). Node's 16 KB header limit bounds it.
      routerOptions: { maxParamLength: 16 * 1024 },
      clientErrorHandler: answerClientError,
      frameworkErrors: answerFrameworkError,
    },
    configure: async (app) => {
      const fastify = app.getHttpAdapter().getInstance();
      installSecurityHeaders(fastify);
      // Every API route checks its key before its body is read: registered before any route is (the poll's next).
      authenticateBeforeBody(app);
      installJsonBodyParser(fastify);
      fastify.server.on('connect', answerConnect);
      // The poll is a plain Fastify route, through the same key and rate-limit checks and error answers as Nest's routes (poll-results.route.ts).
      registerPollResults(app);
      // The pre-check's own limit (contract: body at most 16 KB), the opt-out intake's and the returns', set on their routes before Nest registers them.
      fastify.addHook('onRoute', (route) => {
        const limit = BODY_LIMITS[route.url];
        if (limit !== undefined) route.bodyLimit = limit;
      });
      // The contract as OpenAPI 3: /docs (Swagger UI) and /docs-json, open to anyone (docs/openapi.md).
      serveOpenApi(app, await gatewayOpenApiDocument(config));
    },
  });
}

main().catch((e) => {
  console.error(JSON.stringify({ level: 'fatal', app: 'gateway', msg: 'start-up failed', err: String(e?.stack ?? e) }));
  process.exit(1);
});
