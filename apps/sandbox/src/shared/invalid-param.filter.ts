import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { InvalidParam } from './invalid-param';

/** `{ "error": "INVALID_PARAM", "param": "delay_ms", "in": "query", "message": "…" }` with HTTP 400. */
@Catch(InvalidParam)
export class InvalidParamFilter implements ExceptionFilter<InvalidParam> {
  catch(error: InvalidParam, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    void reply.code(400).send({ error: 'INVALID_PARAM', param: error.param, in: error.location, message: error.message });
  }
}
