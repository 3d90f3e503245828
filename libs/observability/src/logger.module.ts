import { randomUUID } from 'node:crypto';
import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { IncomingMessage } from 'node:http';
import { AppConfig } from '@lr/config';
import { PINO_REDACT_PATHS } from './redact';

export const REQUEST_ID_HEADER = 'x-request-id';

/** A caller's X-Request-Id is kept when it looks sane; otherwise a new UUID. */
export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  if (typeof given === 'string' && /^[A-Za-z0-9._:-]{8,128}$/.test(given)) return given;
  return randomUUID();
}

/** Structured JSON logs (pino): one line per event, the app name, the request id, PII redacted. */
@Module({})
export class ObservabilityLoggerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ObservabilityLoggerModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: {
            level: config.logLevel,
            base: { app: config.app },
            messageKey: 'msg',
            timestamp: () => `,"time":"${new Date().toISOString()}"`,
            redact: { paths: PINO_REDACT_PATHS, censor: '[redacted]' },
            genReqId: (req) => (req as IncomingMessage & { id?: string }).id ?? requestIdFor(req),
            customAttributeKeys: { reqId: 'request_id' },
            // Probes and scrapes are not worth a line each; middie may have rewritten req.url, originalUrl is the path asked for.
            autoLogging: { ignore: (req) => /^\/(health|metrics)(\/|$|\?)/.test((req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '') },
            serializers: {
              req: (req: { id?: string; method?: string; url?: string }) => ({ id: req.id, method: req.method, url: req.url }),
              res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
            },
          },
        }),
      ],
      exports: [LoggerModule],
    };
  }
}
