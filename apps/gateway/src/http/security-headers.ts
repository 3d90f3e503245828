import type { FastifyInstance } from 'fastify';

/**
 * The Swagger UI page's Content-Security-Policy: everything from the gateway
 * itself, nothing from anywhere else (the UI is served without any outside
 * network: docs/openapi.md). Its scripts are files (swagger-ui-bundle.js,
 * swagger-ui-init.js), so no inline script runs; its page and its components
 * write inline styles, and its stylesheet draws icons as data: images.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** What every API answer carries: its type is what it says (no sniffing), and no cache keeps it (answers are per key and change). */
export const API_ANSWER_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

/** The headers of an answer to `url` (a path, query allowed): /docs and its assets get the CSP instead of no-store. */
export function securityHeadersFor(url: string): Readonly<Record<string, string>> {
  return /^\/docs(?:[/?#-]|$)/.test(url)
    ? { 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY }
    : API_ANSWER_HEADERS;
}

/**
 * Sets securityHeadersFor on every answer, errors included, from onRequest on
 * (the error answers that bypass the hooks set them themselves: sendError,
 * client-errors.ts). Three fixed headers: @fastify/helmet would add a dozen
 * more by default (COOP, CORP, HSTS, …) that mean nothing to a JSON API
 * called server to server, and its CSP would still need this per-path choice;
 * a constant table read in one hook is the smaller thing to keep.
 */
export function installSecurityHeaders(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (req, reply, done) => {
    void reply.headers(securityHeadersFor(req.url));
    done();
  });
}
