import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiKeyRecord, hashApiKey } from '@lr/persistence';
import { ApiError } from '../http/api-error';
import { ApiKeyCache } from './api-key-cache';
import { REFUSAL } from '@lr/domain';

/**
 * The distinct keys a request presents, from every `Authorization: Bearer <key>`
 * and every `X-API-Key: <key>` header, read from the raw headers: Node keeps
 * only the first Authorization header (a second one, perhaps the one a proxy
 * checked, was silently ignored) and joins repeated X-API-Key headers.
 * `sent`: some credential header was there, usable or not.
 */
export function presentedKeys(rawHeaders: string[]): { keys: string[]; sent: boolean } {
  const keys = new Set<string>();
  let sent = false;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    const value = rawHeaders[i + 1];
    if (name === 'authorization') {
      sent = true;
      const m = /^Bearer\s+(\S+)\s*$/i.exec(value);
      if (m) keys.add(m[1]);
    } else if (name === 'x-api-key') {
      sent = true;
      if (value.trim() !== '') keys.add(value.trim());
    }
  }
  return { keys: [...keys], sent };
}

/** Longer than any key `keys issue` makes: refused unhashed. */
const MAX_KEY_LENGTH = 256;

/**
 * Authentication (contract: Authentication). Keys are stored only as SHA-256
 * hashes; an unknown, revoked or expired key is AUTH_INVALID, and so are two
 * different keys on one request. Checked on every call (keys are cached for a
 * second, and a revocation clears them at once: see ApiKeyCache). Returns the
 * key; whose it must be is the guard's.
 */
async function authenticate(req: FastifyRequest, keys: ApiKeyCache): Promise<ApiKeyRecord> {
  const { keys: presented, sent } = presentedKeys(req.raw.rawHeaders);
  if (presented.length === 0) throw sent ? ApiError.authInvalid() : ApiError.authRequired();
  // Two different keys: which one is meant is a guess, and guessing is how a request passes as someone else.
  if (presented.length > 1) throw ApiError.of(REFUSAL.severalKeys);
  const raw = presented[0];
  if (raw.length > MAX_KEY_LENGTH) throw ApiError.authInvalid();
  const key = await keys.find(hashApiKey(raw));
  if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= Date.now())) throw ApiError.authInvalid();
  return key;
}

/**
 * A guard of one API: authenticates the key, then admits it when it is of the
 * API's kind (else 403 key_not_permitted). `check` is the guard's whole work on
 * a request, for the routes Nest does not run (the poll's: poll-results.route.ts).
 */
@Injectable()
abstract class KeyGuard implements CanActivate {
  constructor(private readonly keys: ApiKeyCache) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    await this.check(ctx.switchToHttp().getRequest<FastifyRequest>());
    return true;
  }

  /**
   * Authenticates the request's key and admits it (sets the request's caller), or throws the ApiError to answer.
   * Once per request: the front door (front-door.ts) runs it before the body is read, and the guard again finds it done.
   */
  async check(req: FastifyRequest): Promise<void> {
    if (this.admitted(req)) return;
    this.admit(req, await authenticate(req, this.keys));
  }

  /** Whether the request presents one key this gateway holds in memory, so checking it costs no lookup. */
  holdsKey(req: FastifyRequest): boolean {
    const { keys } = presentedKeys(req.raw.rawHeaders);
    return keys.length === 1 && keys[0].length <= MAX_KEY_LENGTH && this.keys.holds(hashApiKey(keys[0]));
  }

  protected abstract admitted(req: FastifyRequest): boolean;
  protected abstract admit(req: FastifyRequest, key: ApiKeyRecord): void;
}

/** The affiliate API's guard: an affiliate's key, its account active. A school's key is not permitted here (403). */
@Injectable()
export class ApiKeyGuard extends KeyGuard {
  protected admitted(req: FastifyRequest): boolean {
    return req.principal !== undefined;
  }

  protected admit(req: FastifyRequest, key: ApiKeyRecord): void {
    if (key.affiliateId === null) throw ApiError.forbidden(REFUSAL.keyNotPermitted);
    if (key.affiliateStatus !== 'active') throw ApiError.forbidden(REFUSAL.affiliatePaused);
    req.principal = { keyId: key.id, affiliateId: key.affiliateId, limits: key.limits ?? {} };
  }
}

/** The buyer API's guard (docs/returns.md): a school's key. An affiliate's key is not permitted here (403). */
@Injectable()
export class BuyerKeyGuard extends KeyGuard {
  protected admitted(req: FastifyRequest): boolean {
    return req.buyer !== undefined;
  }

  protected admit(req: FastifyRequest, key: ApiKeyRecord): void {
    if (key.schoolId === null) throw ApiError.forbidden(REFUSAL.keyNotPermitted);
    req.buyer = { keyId: key.id, schoolId: key.schoolId, limits: key.limits ?? {} };
  }
}
