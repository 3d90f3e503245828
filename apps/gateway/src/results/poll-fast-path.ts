import { ExceptionFilter, ExecutionContext, ForbiddenException } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { RateLimitGuard } from '../auth/rate-limit.guard';
import { ApiExceptionFilter } from '../http/api-exception.filter';
import { ResultsController } from './results.controller';

/** The poll's route as Fastify knows it (Nest's `results/:svc_lead_id` under the controller's prefix). */
export const POLL_ROUTE = '/api/v1/engine/results/:svc_lead_id';

/**
 * The poll, the gateway's hottest call, answered from an `onRequest` hook on
 * its route instead of through Nest's router: the same guards (authentication,
 * then the rate limit with the search's Redis read along), the same controller
 * method and the same exception filter (the contract's error envelope), called
 * with an execution context for ResultsController.results, so their metadata
 * (`@Endpoint('results')`, `@RateLimitReadsAlong`) is what Nest would give them.
 * What it skips is Nest's per-request machinery (middleware runner, router
 * proxy, guard and interceptor consumers, parameter pipes, response
 * controller): about a tenth of the gateway's CPU per poll (docs/performance.md).
 * The Nest route stays registered and documented (OpenAPI); with this hook it
 * is not reached for a GET. Fastify's routing and the app's own hooks (request
 * id and correlation, `Connection: close` while draining, the duration
 * histogram) run as for every request.
 */
export function installPollFastPath(app: NestFastifyApplication): void {
  const guards: Array<{ canActivate(ctx: ExecutionContext): Promise<boolean> }> = [app.get(ApiKeyGuard), app.get(RateLimitGuard)];
  const controller = app.get(ResultsController);
  const filter: ExceptionFilter = new ApiExceptionFilter();
  const handler = ResultsController.prototype.results;

  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
      if (req.routeOptions.url !== POLL_ROUTE || req.method !== 'GET') return;
      const ctx = new ExecutionContextHost([req, reply], ResultsController, handler);
      ctx.setType('http');
      try {
        // As Nest does: a guard that answers false is a 403.
        for (const guard of guards) if (!(await guard.canActivate(ctx))) throw new ForbiddenException();
        const body = await controller.results(req, (req.params as { svc_lead_id: string }).svc_lead_id);
        // Not awaited: a FastifyReply is a thenable that settles when the answer is written, and a client gone by then is no error of the poll.
        void reply.header('Content-Type', 'application/json; charset=utf-8').send(body);
      } catch (e) {
        filter.catch(e, ctx);
      }
      return reply;
    });
}
