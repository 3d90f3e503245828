import { DynamicModule, Module, RequestMethod } from '@nestjs/common';
import type { RouteInfo } from '@nestjs/common/interfaces';
import type { FastifyInstance } from 'fastify';
import { LoggerModule, PinoLogger } from 'nestjs-pino';
import { AppConfig } from '@lr/config';
import { CLIENT_REQUEST_ID_FIELD, CORRELATION_ID_FIELD, clientRequestIdOf, correlationLogFields } from './correlation';
import { PINO_REDACT_PATHS, errorForLog, logSafeUrl, scrubContactData } from './redact';

/** The routes an app writes no request-completed line for (ObservabilityLoggerModule.forRoot's `unlogged`). */
export const ACCESS_LOG_OPTIONS = Symbol('ACCESS_LOG_OPTIONS');

export interface AccessLogOptions {
  unlogged?: RouteInfo[];
}

/**
 * Structured JSON logs (pino): one line per event, the app name, the
 * correlation id of the request or message being handled (see correlation.ts),
 * contact data redacted, URLs without query strings.
 *
 * nestjs-pino gives Nest its logger, on the root pino logger: its pino-http
 * middleware is applied to no route. pino-http would build a child logger per
 * request and nestjs-pino an AsyncLocalStorage store for it (a tenth of the
 * gateway's CPU per request, the middleware bridge of Fastify included), only
 * to tag lines with the request, which the correlation-id mixin already does
 * for every line. The request-completed line is written by a Fastify
 * onResponse hook instead (installAccessLog).
 */
@Module({})
export class ObservabilityLoggerModule {
  /**
   * `unlogged`: routes that get no request-completed line: the gateway's poll,
   * its hottest call, is counted and timed in metrics instead. Lines written
   * while such a request is handled still carry its correlation id.
   */
  static forRoot(config: AppConfig, opts: AccessLogOptions = {}): DynamicModule {
    return {
      module: ObservabilityLoggerModule,
      imports: [
        LoggerModule.forRoot({
          forRoutes: [],
          pinoHttp: {
            level: config.logLevel,
            base: { app: config.app },
            messageKey: 'msg',
            timestamp: () => `,"time":"${new Date().toISOString()}"`,
            redact: { paths: PINO_REDACT_PATHS, censor: '[redacted]' },
            hooks: { streamWrite: scrubContactData },
            mixin: correlationLogFields,
            // pino-http's serializers run its standard ones first, on a request and a response object.
            serializers: {
              req: (req: { id?: string; method?: string; url?: string }) => ({ id: req.id, method: req.method, url: logSafeUrl(req.url) }),
              res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
              err: errorForLog,
            },
          },
        }),
      ],
      providers: [{ provide: ACCESS_LOG_OPTIONS, useValue: opts }],
      exports: [LoggerModule, ACCESS_LOG_OPTIONS],
    };
  }
}

/**
 * One line per answered request, as pino-http wrote it: `request completed`
 * (info), or `request errored` (error) for a 5xx; with the request (id,
 * method, path without query), the status, the time taken, the
 * correlation id and the caller’s own request id (client_request_id, when it
 * sent a well-formed X-Request-Id). The `unlogged` routes get none; probes and
 * scrapes are answered on the management port, which logs nothing.
 */
export function installAccessLog(fastify: FastifyInstance, opts: AccessLogOptions): void {
  const unlogged = new Set((opts.unlogged ?? []).map((r) => `${RequestMethod[r.method]} /${r.path.replace(/^\/+/, '')}`));
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    if (!(route !== undefined && unlogged.has(`${request.method} ${route}`))) {
      // The request and the response as pino-http passed them (their serializers keep the id, method, path and status).
      const line = {
        req: request,
        res: reply.raw,
        responseTime: Math.round(reply.elapsedTime),
        [CORRELATION_ID_FIELD]: request.id,
        [CLIENT_REQUEST_ID_FIELD]: clientRequestIdOf(request.raw),
      };
      if (reply.statusCode >= 500) PinoLogger.root.error(line, 'request errored');
      else PinoLogger.root.info(line, 'request completed');
    }
    done();
  });
}
