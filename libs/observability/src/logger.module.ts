import { DynamicModule, Module } from '@nestjs/common';
import type { RouteInfo } from '@nestjs/common/interfaces';
import { LoggerModule } from 'nestjs-pino';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppConfig } from '@lr/config';
import { CORRELATION_ID_FIELD, correlationIdFor, correlationLogFields } from './correlation';
import { PINO_REDACT_PATHS, errorForLog, logSafeUrl, scrubContactData } from './redact';

type RequestWithId = IncomingMessage & { id?: string; originalUrl?: string };

/** The request-completed line: pino-http's fields plus the request's correlation id (it may end outside the request's context). */
function withCorrelation(req: IncomingMessage, _res: ServerResponse, fields: Record<string, unknown>): Record<string, unknown> {
  return { ...fields, [CORRELATION_ID_FIELD]: (req as RequestWithId).id };
}

/**
 * Structured JSON logs (pino): one line per event, the app name, the
 * correlation id of the request or message being handled (see correlation.ts),
 * contact data redacted, URLs without query strings.
 */
@Module({})
export class ObservabilityLoggerModule {
  /**
   * `unlogged`: routes that get no request-completed line (and no per-request
   * child logger): the gateway's poll, its hottest call, is counted and timed
   * in metrics instead; building pino-http's child logger on every poll cost
   * about a tenth of the gateway's CPU. Lines written while such a request is
   * handled still carry its correlation id (the mixin reads it from context).
   */
  static forRoot(config: AppConfig, opts: { unlogged?: RouteInfo[] } = {}): DynamicModule {
    return {
      module: ObservabilityLoggerModule,
      imports: [
        LoggerModule.forRoot({
          ...(opts.unlogged?.length ? { exclude: opts.unlogged } : {}),
          pinoHttp: {
            level: config.logLevel,
            base: { app: config.app },
            messageKey: 'msg',
            timestamp: () => `,"time":"${new Date().toISOString()}"`,
            redact: { paths: PINO_REDACT_PATHS, censor: '[redacted]' },
            hooks: { streamWrite: scrubContactData },
            mixin: correlationLogFields,
            genReqId: (req) => (req as RequestWithId).id ?? correlationIdFor(req),
            customSuccessObject: withCorrelation,
            customErrorObject: (req, res, _err, fields) => withCorrelation(req, res, fields),
            // Probes and scrapes are not worth a line each; middie may have rewritten req.url, originalUrl is the path asked for.
            autoLogging: { ignore: (req) => /^\/(health|metrics)(\/|$|\?)/.test((req as RequestWithId).originalUrl ?? req.url ?? '') },
            serializers: {
              req: (req: { id?: string; method?: string; url?: string }) => ({ id: req.id, method: req.method, url: logSafeUrl(req.url) }),
              res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
              err: errorForLog,
            },
          },
        }),
      ],
      exports: [LoggerModule],
    };
  }
}
