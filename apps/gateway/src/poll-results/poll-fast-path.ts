import { CanActivate, ExceptionFilter, ExecutionContext, ForbiddenException, Type } from '@nestjs/common';
import { GUARDS_METADATA, HEADERS_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiExceptionFilter } from '../http/api-exception.filter';
import { PollResultsHandler } from './poll-results.handler';

const handler = PollResultsHandler.prototype.results;

/** The poll's route as Fastify knows it: the controller's prefix and the handler's path, from their decorators. */
export const POLL_ROUTE = `/${[Reflect.getMetadata(PATH_METADATA, PollResultsHandler), Reflect.getMetadata(PATH_METADATA, handler)].join('/')}`;

/**
 * The poll, the gateway's hottest call, answered from an `onRequest` hook on
 * its route instead of through Nest's router: the same guards (authentication,
 * then the rate limit with the search's Redis read along), the same controller
 * method and the same exception filter (the contract's error envelope), called
 * with an execution context for PollResultsHandler.results, so their metadata
 * (`@Endpoint('results')`, `@RateLimitReadsAlong`) is what Nest would give them.
 * What it skips is Nest's per-request machinery (middleware runner, router
 * proxy, guard and interceptor consumers, parameter pipes, response
 * controller): about a tenth of the gateway's CPU per poll (docs/decisions.md).
 * The Nest route stays registered and documented (OpenAPI); with this hook it
 * is not reached for a GET. Fastify's routing and the app's own hooks (request
 * id and correlation, `Connection: close` while draining, the duration
 * histogram) run as for every request.
 */
export function installPollFastPath(app: NestFastifyApplication): void {
  // The guards and headers the decorators declare (controller, then method), so the hook can never skip one Nest would run.
  const guardTypes: Array<Type<CanActivate>> = [
    ...((Reflect.getMetadata(GUARDS_METADATA, PollResultsHandler) as Array<Type<CanActivate>> | undefined) ?? []),
    ...((Reflect.getMetadata(GUARDS_METADATA, handler) as Array<Type<CanActivate>> | undefined) ?? []),
  ];
  const guards = guardTypes.map((g) => app.get(g) as { canActivate(ctx: ExecutionContext): Promise<boolean> | boolean });
  const headers = (Reflect.getMetadata(HEADERS_METADATA, handler) as Array<{ name: string; value: string }> | undefined) ?? [];
  const controller = app.get(PollResultsHandler);
  const filter: ExceptionFilter = new ApiExceptionFilter();

  const fastify = app.getHttpAdapter().getInstance();
  // Fails the start-up if the route the hook waits for is never registered (the hook would silently answer nothing).
  let routed = false;
  fastify.addHook('onRoute', (route) => {
    if (route.url === POLL_ROUTE && [route.method].flat().includes('GET')) routed = true;
  });
  fastify.addHook('onReady', (done) => done(routed ? undefined : new Error(`poll fast path: no GET route ${POLL_ROUTE}`)));
  fastify.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.routeOptions.url !== POLL_ROUTE || req.method !== 'GET') return;
    const ctx = new ExecutionContextHost([req, reply], PollResultsHandler, handler);
    ctx.setType('http');
    try {
      // As Nest does: a guard that answers false is a 403.
      for (const guard of guards) if (!(await guard.canActivate(ctx))) throw new ForbiddenException();
      const body = await controller.results(req, (req.params as { svc_lead_id: string }).svc_lead_id);
      for (const h of headers) void reply.header(h.name, h.value);
      // Not awaited: a FastifyReply is a thenable that settles when the answer is written, and a client gone by then is no error of the poll.
      void reply.send(body);
    } catch (e) {
      filter.catch(e, ctx);
    }
    return reply;
  });
}
