import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { hashApiKey } from '@lr/persistence';
import { ApiError } from '../http/api-error';
import { ApiKeyCache } from './api-key-cache';

/** Extracts the key from `Authorization: Bearer <key>` or `X-API-Key: <key>`. */
export function presentedKey(req: FastifyRequest): string | undefined {
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) return m[1];
  }
  const header = req.headers['x-api-key'];
  if (typeof header === 'string' && header.trim() !== '') return header.trim();
  return undefined;
}

/**
 * Authentication (contract: Authentication). Keys are stored only as SHA-256
 * hashes; an unknown, revoked or expired key is AUTH_INVALID, checked on every
 * call (keys are cached for a second, and a revocation clears them at once: see ApiKeyCache).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly keys: ApiKeyCache) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<FastifyRequest>();
    const raw = presentedKey(req);
    if (!raw) {
      const sentSomething = req.headers.authorization !== undefined || req.headers['x-api-key'] !== undefined;
      throw sentSomething ? ApiError.authInvalid() : ApiError.authRequired();
    }
    if (raw.length > 256) throw ApiError.authInvalid();
    const key = await this.keys.find(hashApiKey(raw));
    if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= Date.now())) throw ApiError.authInvalid();
    if (key.affiliateStatus !== 'active') throw ApiError.forbidden('Not permitted', { error: 'affiliate_paused' });
    req.principal = { keyId: key.id, affiliateId: key.affiliateId, limits: key.limits ?? {} };
    return true;
  }
}
