import { applyDecorators, CallHandler, ExecutionContext, Injectable, NestInterceptor, UseInterceptors } from '@nestjs/common';
import { EventPattern, MessagePattern } from '@nestjs/microservices';
import { Observable, catchError, throwError } from 'rxjs';
import { AmqpContext } from './amqp-context';

/**
 * Hands a handler's original error to the transport (via AmqpContext) before
 * Nest's RPC exception filter replaces it by `{ status: 'error', message:
 * 'Internal server error' }`, so the retry/dead-letter headers say what failed.
 * The error is re-thrown unchanged; other contexts pass straight through.
 */
@Injectable()
export class CaptureHandlerErrors implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
    const ctx = context.switchToRpc().getContext<unknown>();
    if (!(ctx instanceof AmqpContext)) return next.handle();
    return next.handle().pipe(
      catchError((error: unknown) => {
        ctx.recordFailure(error);
        return throwError(() => error);
      }),
    );
  }
}

/**
 * Handles a command or request of `type`: a returned value is the reply when
 * the message asks for one (request/reply). Same as `@MessagePattern(type)`
 * plus error capture.
 */
export function HandleMessage(type: string): MethodDecorator {
  return applyDecorators(MessagePattern(type), UseInterceptors(CaptureHandlerErrors));
}

/** Handles an event of `type` (never replies). Same as `@EventPattern(type)` plus error capture. */
export function HandleEvent(type: string): MethodDecorator {
  return applyDecorators(EventPattern(type), UseInterceptors(CaptureHandlerErrors));
}
