import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isUUID } from 'class-validator';
import { REFUSAL } from '@lr/domain';
import { CachedSearch, SearchStateReader } from '@lr/search-state';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { RateLimitGuard, ReadAlong, readAlongValue } from '../auth/rate-limit.guard';
import { ApiError } from '../http/api-error';
import { answerException } from '../http/api-exception.filter';
import { PollResults } from './poll-results.usecase';

/** The poll's route, in Fastify's syntax (the path PollResultsApi documents). */
export const POLL_PATH = '/api/v1/engine/results/:svc_lead_id';

/**
 * The poll, the gateway's hottest call, as a plain Fastify route rather than
 * a Nest controller: Nest's per-request machinery (router proxy, guard and
 * interceptor consumers, parameter pipes, execution contexts, response
 * controller) was about a tenth of the gateway's CPU per poll
 * (docs/decisions.md). It does what the Nest route did, by calling what the
 * Nest routes call: ApiKeyGuard's check (authentication, an affiliate's
 * key), RateLimitGuard's check (the `results` budget and X-RateLimit-*
 * headers, with the search's Redis read in the same round trip), the
 * PollResults use case, and on any error answerException (the contract's
 * envelope, as the exception filter answers). The app's Fastify hooks run as
 * for every route: the request id and correlation, `Connection: close` while
 * draining, the duration histogram; the access log leaves polls out.
 * Fastify answers its HEAD from this route. Call before listen.
 */
export function registerPollResults(app: NestFastifyApplication): void {
  const keys = app.get(ApiKeyGuard);
  const limits = app.get(RateLimitGuard);
  const reader = app.get(SearchStateReader);
  const polls = app.get(PollResults);
  // The search's Redis read rides on the rate limit's round trip (one round trip per poll, not two): the reader's
  // client is the guard's (REDIS_CLIENT), so the HGETALL is written right behind the token bucket on one connection.
  const readPolledSearch: ReadAlong<CachedSearch | undefined> = (req) => {
    const id = (req.params as { svc_lead_id: string }).svc_lead_id;
    return isUUID(id) ? reader.cached(id.toLowerCase()) : undefined;
  };
  app
    .getHttpAdapter()
    .getInstance()
    .get(POLL_PATH, async (req: FastifyRequest, reply: FastifyReply) => {
      try {
        await keys.check(req);
        await limits.check(req, reply, 'results', readPolledSearch);
        const id = (req.params as { svc_lead_id: string }).svc_lead_id;
        if (!isUUID(id)) throw ApiError.of(REFUSAL.searchNotFound);
        const body = await polls.answer(req.principal!, id.toLowerCase(), readAlongValue<CachedSearch>(req));
        void reply.header('Content-Type', 'application/json; charset=utf-8');
        // Not awaited: a FastifyReply is a thenable that settles when the answer is written, and a client gone by then is no error of the poll.
        void reply.send(body);
      } catch (e) {
        answerException(e, req, reply);
      }
      return reply;
    });
}
