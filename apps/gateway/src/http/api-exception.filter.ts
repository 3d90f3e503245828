import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiEnvelope } from '@lr/contracts';
import { counter } from '@lr/observability';
import { ApiError } from './api-error';
import { DependencyFailure } from './dependencies';
import { API_ANSWER_HEADERS } from './security-headers';
import { REFUSAL } from '@lr/domain';

/** The contract's routes (and the buyer API's) and their one method: any other method answers 405 (not 404). */
export function allowedMethods(path: string): string | undefined {
  if (/^\/api\/v1\/engine\/(search|leads|dupe-check|opt-outs)$/.test(path) || path === '/api/v1/buyer/returns') return 'POST';
  if (/^\/api\/v1\/engine\/(results|leads)\/[^/]+$/.test(path)) return 'GET';
  return undefined;
}

const answers = counter('gateway_error_answers_total', 'Error answers by HTTP status and code', ['status', 'code']);

/** The contract's envelope for an error (`request_id` on a 500), counted by status and code. */
export function errorBody(error: ApiError, requestId: string): ApiEnvelope {
  answers.inc({ status: String(error.httpStatus), code: error.code });
  const body: ApiEnvelope = {
    code: error.code,
    status: error.status,
    reason: error.reason,
    success: false,
    retryable: false,
    ...error.extra,
  };
  if (error.httpStatus >= 500 && error.code === 'INTERNAL_ERROR') body.request_id = requestId;
  return body;
}

/**
 * Sends an error answer: the envelope, the error's headers, the request id and
 * the API answers' nosniff and no-store (set on every answer by the app's
 * hooks; again here for the answers that bypass the hooks, such as a URL the
 * router cannot decode).
 */
export function sendError(reply: FastifyReply, error: ApiError, requestId: string): void {
  void reply.headers(API_ANSWER_HEADERS);
  for (const [k, v] of Object.entries(error.headers)) void reply.header(k, v);
  void reply.header('X-Request-Id', requestId);
  void reply.status(error.httpStatus).send(errorBody(error, requestId));
}

const log = new Logger('ApiExceptionFilter');

/**
 * The contract's envelope on every answer that is not a success: our own
 * ApiErrors, Fastify's own refusals (malformed JSON, wrong content type, body too
 * large, unknown route), Nest's HttpExceptions, and anything unexpected (500
 * INTERNAL_ERROR with the request id, logged with its stack). What the
 * exception filter runs, and what the routes Nest does not run call themselves
 * (the poll's: poll-results.route.ts).
 */
export function answerException(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const error = toApiError(exception, request);
  if (exception instanceof DependencyFailure) {
    const line = { dependency: exception.dependencyName, err: String((exception.causeError as Error)?.message ?? exception.causeError) };
    if (exception.refusedAtOnce) log.debug(line, 'dependency known to be down');
    else log.warn(line, 'dependency unavailable');
  }
  sendError(reply, error, String(request.id));
}

function toApiError(exception: unknown, request: FastifyRequest): ApiError {
  if (exception instanceof ApiError) return exception;
  const fastifyCode = (exception as { code?: string })?.code;
  const statusCode = exception instanceof HttpException ? exception.getStatus() : (exception as { statusCode?: number })?.statusCode;
  switch (fastifyCode) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return ApiError.malformed(REFUSAL.bodyTooLarge);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return ApiError.malformed(REFUSAL.notJsonContent);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return ApiError.malformed(REFUSAL.bodyLengthMismatch);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return ApiError.malformed(REFUSAL.bodyEmpty);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return ApiError.malformed(REFUSAL.bodyNotJson);
  }
  if (exception instanceof SyntaxError || (statusCode === 400 && /JSON/i.test(String((exception as Error)?.message)))) {
    return ApiError.malformed(REFUSAL.bodyNotJson);
  }
  if (statusCode === 404) {
    const asked = request.url.split('?')[0];
    const path = asked.replace(/\/+$/, '');
    const allowed = allowedMethods(path);
    // 405 only when the method is what is wrong: the right method on a near path (a trailing slash) is no route.
    const rightMethod = request.method === allowed || (request.method === 'HEAD' && allowed === 'GET');
    if (allowed && !rightMethod) return ApiError.malformed(REFUSAL.wrongMethod(allowed), { Allow: allowed });
    return ApiError.of(REFUSAL.noRoute(request.method, asked));
  }
  if (statusCode === 413) return ApiError.malformed(REFUSAL.bodyTooLarge);
  if (statusCode === 415) return ApiError.malformed(REFUSAL.notJsonContent);
  if (statusCode && statusCode >= 400 && statusCode < 500) return ApiError.malformed(REFUSAL.malformedRequest(statusCode));
  if (statusCode === 503) return ApiError.unavailable();
  log.error(
    { err: exception instanceof Error ? { message: exception.message, stack: exception.stack } : String(exception) },
    'unexpected error',
  );
  return ApiError.of(REFUSAL.internalError);
}

/** Every exception of the routes Nest runs, answered by answerException. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    answerException(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}
