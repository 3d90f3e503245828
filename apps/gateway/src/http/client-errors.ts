import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './api-error';
import { errorBody, sendError } from './api-exception.filter';

/**
 * Requests that never reach a route, answered in the contract's envelope
 * like every other refusal (Fastify's own answers to these are a different
 * JSON shape). Given to Fastify's constructor (startHttpApp's `fastify`).
 */

/**
 * `clientErrorHandler`: Node could not parse the HTTP request at all (headers
 * over 16 KB, a control character in a header, a bad request line or
 * Content-Length). There is no request object; the answer is written on the
 * socket, which is then closed.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? ApiError.malformed(431, 'Request headers too large')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ApiError.malformed(408, 'Request not received in time')
        : ApiError.malformed(400, 'Malformed HTTP request');
  const requestId = randomUUID();
  const body = JSON.stringify(errorBody(error, requestId));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${error.httpStatus} ${STATUS_CODES[error.httpStatus]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/** `frameworkErrors`: the router refused the URL (a bad percent-encoding such as `%zz`). */
export function answerFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const error = err.code === 'FST_ERR_BAD_URL' ? ApiError.malformed(400, 'Malformed URL (invalid percent-encoding)') : ApiError.malformed(400, 'Malformed request');
  sendError(reply, error, String(request.id));
}
