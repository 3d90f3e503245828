import { applyDecorators, ArgumentsHost, Catch, Injectable, RpcExceptionFilter, UseFilters } from '@nestjs/common';
import { EventPattern, MessagePattern } from '@nestjs/microservices';
import { Observable, throwError } from 'rxjs';
import { AmqpContext } from './amqp-context';

/**
 * Hands a handler's original error to the transport (via AmqpContext) before
 * Nest's RPC exception handling replaces it by `{ status: 'error', message:
 * 'Internal server error' }`, so the retry/dead-letter headers say what failed.
 * The error is re-thrown unchanged; other contexts pass straight through.
 * An exception filter, not an interceptor: it runs only when a handler
 * throws, so a message handled without error goes through none of Nest's
 * interceptor machinery (Observables, async resources) at all.
 */
@Catch()
@Injectable()
export class CaptureHandlerErrors implements RpcExceptionFilter<unknown> {
  catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    if (host.getType() === 'rpc') {
      const ctx = host.switchToRpc().getContext<unknown>();
      if (ctx instanceof AmqpContext) ctx.recordFailure(exception);
    }
    return throwError(() => exception);
  }
}

/**
 * Handles a command or request of `type`: a returned value is the reply when
 * the message asks for one (request/reply). Same as `@MessagePattern(type)`
 * plus error capture.
 */
export function HandleMessage(type: string): MethodDecorator {
  return applyDecorators(MessagePattern(type), UseFilters(CaptureHandlerErrors));
}

/** Handles an event of `type` (never replies). Same as `@EventPattern(type)` plus error capture. */
export function HandleEvent(type: string): MethodDecorator {
  return applyDecorators(EventPattern(type), UseFilters(CaptureHandlerErrors));
}
