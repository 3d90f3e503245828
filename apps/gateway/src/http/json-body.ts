import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './api-error';
import { markStorableIfClean } from './validation';
import { REFUSAL } from '@lr/domain';

/**
 * Deepest nesting a request body may have. The contract's deepest field is
 * `lead.personal.email` (three levels); 32 leaves room for any extra property
 * a client sends, and keeps recursive code downstream (class-transformer,
 * JSON.stringify for the message, PostgreSQL's jsonb input) far from its limits.
 */
export const MAX_BODY_DEPTH = 32;

/** True when `value` nests objects or arrays deeper than `limit` levels. Iterative: a hostile body cannot overflow the stack. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(v as object)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/** The `charset` parameter of a Content-Type, lower-case; undefined when none is given. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? '');
  return m ? m[1].toLowerCase() : undefined;
}

/**
 * Replaces Fastify's JSON body parser with one that holds the contract's
 * "JSON in, UTF-8": a charset other than UTF-8 or a Content-Encoding is 415, a
 * body that is not valid UTF-8 is 400 (Fastify would have decoded it with
 * replacement characters and stored the damage), and a body nested deeper than
 * MAX_BODY_DEPTH is 400 (it overflowed class-transformer's recursion: 500).
 * Parsing itself stays Fastify's, with its refusal of `__proto__` and
 * `constructor.prototype` keys; the route's body limit still applies.
 */
export function installJsonBodyParser(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req: FastifyRequest, body: Buffer, done) => {
    const charset = charsetOf(req.headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      return done(ApiError.malformed(REFUSAL.notJsonUtf8Content), undefined);
    }
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      return done(ApiError.malformed(REFUSAL.contentEncoding), undefined);
    }
    if (!isUtf8(body)) return done(ApiError.malformed(REFUSAL.bodyNotUtf8), undefined);
    const text = body.toString('utf8');
    parseJson(req, text, (err, value) => {
      if (err) return done(err, undefined);
      if (nestedDeeperThan(value, MAX_BODY_DEPTH)) return done(ApiError.malformed(REFUSAL.bodyTooDeep(MAX_BODY_DEPTH)), undefined);
      markStorableIfClean(text, value);
      done(null, value);
    });
  });
}
