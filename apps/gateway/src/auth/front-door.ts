import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { ApiError } from '../http/api-error';
import { answerException } from '../http/api-exception.filter';
import { answeredBeforeItsBody } from '../http/client-errors';
import { AddressBudget } from './address-budget';
import { ApiKeyGuard, BuyerKeyGuard } from './api-key.guard';

/**
 * The key a route of the gateway takes, by its path: an affiliate's on the
 * affiliate API, a school's on the buyer API (docs/returns.md); none on the
 * routes anyone may call (/docs, /docs-json: docs/openapi.md). The same split
 * as the handlers' @UseGuards, which still run and find the key checked.
 */
export function keyKindOf(url: string): 'affiliate' | 'buyer' | undefined {
  if (url.startsWith('/api/v1/engine/')) return 'affiliate';
  if (url.startsWith('/api/v1/buyer/')) return 'buyer';
  return undefined;
}

/**
 * Authenticates every API call before its body is read (docs/security.md, The
 * front door): an onRequest hook on each API route runs the key check of the
 * route's guard (ApiKeyGuard or BuyerKeyGuard `check`) and answers a refusal
 * (401, 403) in the contract's envelope without parsing a byte of the body; the
 * guard on the handler then finds the caller admitted. A call refused 401 spends
 * its client address's budget (AddressBudget), and answers 429 once that is
 * spent. Call before the routes are registered (before registerPollResults).
 */
export function authenticateBeforeBody(app: NestFastifyApplication): void {
  const guards = { affiliate: app.get(ApiKeyGuard), buyer: app.get(BuyerKeyGuard) };
  const budget = app.get(AddressBudget);
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRoute', (route) => {
    const kind = keyKindOf(route.url);
    if (kind === undefined) return;
    const guard = guards[kind];
    const hook: onRequestAsyncHookHandler = async (req: FastifyRequest, reply: FastifyReply) => {
      const blocked = budget.refusalFor(req.ip);
      if (blocked && !guard.holdsKey(req)) return refuse(blocked, req, reply);
      try {
        await guard.check(req);
      } catch (e) {
        return refuse(e instanceof ApiError && e.httpStatus === 401 ? await budget.spend(req.ip, e) : e, req, reply);
      }
    };
    const given = route.onRequest;
    route.onRequest = [...(given === undefined ? [] : Array.isArray(given) ? given : [given]), hook];
  });
}

function refuse(error: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  answeredBeforeItsBody(req.raw);
  answerException(error, req, reply);
  return reply;
}
