import type { Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AFFILIATE_ENDPOINTS, BUYER_ENDPOINTS, DEFAULT_RATE_LIMITS, EndpointName } from '@lr/contracts';
import { AFFILIATE_API_TAG, API_KEY_SCHEME, BEARER_SCHEME, BUYER_API_TAG } from './contract-answers';
import { domainSchemas } from './lead-schemas';
import { withSchemaKeywords } from './schema-keywords';

export const DOCS_PATH = 'docs';
export const DOCS_JSON_PATH = 'docs-json';

/** The contract's version label (affiliate-api.md, Versioning). */
const CONTRACT_VERSION = '2026-09-28';

/**
 * The contract's "Base address: {base_url}" differs per operator; the document
 * names a local gateway (`npm run start:all`, PORT 3000), so a client
 * generated from it has a working default, and says to use the operator's
 * address instead. Not a server variable: client generators (openapi-ts)
 * take no default from a templated URL.
 */
const LOCAL_SERVER = {
  url: 'http://localhost:3000',
  description: 'A gateway on this machine (npm run start:all). Elsewhere, the base address your service operator gives you.',
};

const limits = (endpoints: readonly EndpointName[]) =>
  endpoints.map((e) => `| ${e} | ${DEFAULT_RATE_LIMITS[e].perMinute} | ${DEFAULT_RATE_LIMITS[e].burst} |`).join('\n');

const DESCRIPTION = `Lead search, result polling, result submission, direct lead posting and the optional duplicate pre-check.
Server to server: JSON in, JSON out, UTF-8; requests send \`Content-Type: application/json\`.

**Flow.** (1) \`POST /api/v1/engine/search\` with the lead, campaign id and affiliate id; the answer carries the search id
(\`svc_lead_id\`) and the first results. (2) \`GET /api/v1/engine/results/{svc_lead_id}\` until \`processing_done\` is true,
no faster than \`poll_after_ms\`; a search stays open for up to 45 seconds. (3) \`POST /api/v1/engine/leads\` with the
chosen \`svc_result_id\`, \`search_lead_id\`, program, answers to the result's questions and consent.

**Authentication.** Every call carries an API key: \`Authorization: Bearer <API_KEY>\` or \`X-API-Key: <API_KEY>\`.

**Answers.** Every answer carries \`status\`, \`reason\` and \`code\`; the service adds answer fields without notice and
clients ignore keys they do not use. A \`PENDING\` submit answer is not final.

**Limits** per key and per endpoint (a key may carry its own): the budget refills continuously and holds at most the burst.

| endpoint | per minute | burst |
| --- | --- | --- |
${limits(AFFILIATE_ENDPOINTS)}

**Buyer API.** A school that bought a lead returns it with \`POST /api/v1/buyer/returns\`, with an API key issued to the school
(an affiliate's key is not permitted there, nor a school's on the affiliate API), within the offer's return window and with one
of the offer's reason codes. Its own budget per key:

| endpoint | per minute | burst |
| --- | --- | --- |
${limits(BUYER_ENDPOINTS)}`;

/**
 * The affiliate API as an OpenAPI 3 document, generated from the gateway's
 * controllers and the DTOs that validate its requests (docs/openapi.md). Only
 * the gateway's own module is scanned, so /health and /metrics stay out.
 */
export function buildOpenApiDocument(app: NestFastifyApplication, rootModule: Type<unknown>): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Lead router affiliate API')
    .setDescription(DESCRIPTION)
    .setVersion(CONTRACT_VERSION)
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    .addServer(LOCAL_SERVER.url, LOCAL_SERVER.description)
    .addTag(AFFILIATE_API_TAG, 'Search, results, submit, direct post and the duplicate pre-check, with an API key.')
    .addTag(BUYER_API_TAG, 'Returns of bad leads by the schools that bought them, with a school’s API key.')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'API key', description: '`Authorization: Bearer <API_KEY>`' },
      BEARER_SCHEME,
    )
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: '`X-API-Key: <API_KEY>`' }, API_KEY_SCHEME)
    .build();
  config.components = { ...config.components, schemas: { ...config.components?.schemas, ...domainSchemas() } };
  return withSchemaKeywords(SwaggerModule.createDocument(app, config, { include: [rootModule] }));
}

/**
 * Serves `document` at /docs-json and Swagger UI at /docs (its assets under
 * /docs/). These are plain Fastify routes, outside Nest's guards: no API key,
 * no rate limit; a missing asset is the envelope's 404 like any unknown route.
 * The document is built at start-up (gatewayOpenApiDocument), so a broken one
 * stops the gateway instead of failing its first reader. Call before listen.
 */
export function serveOpenApi(app: NestFastifyApplication, document: OpenAPIObject): void {
  SwaggerModule.setup(DOCS_PATH, app, document, {
    jsonDocumentUrl: DOCS_JSON_PATH,
    raw: ['json'],
    customSiteTitle: 'Lead router affiliate API',
    swaggerOptions: { persistAuthorization: false, tryItOutEnabled: false },
  });
}
