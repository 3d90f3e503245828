import { randomUUID } from 'node:crypto';
import { IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './api-error';
import { allowedMethods, errorBody, sendError } from './api-exception.filter';
import { API_ANSWER_HEADERS } from './security-headers';
import { REFUSAL } from '@lr/domain';

/**
 * Requests that never reach a route, answered in the contract's envelope
 * like every other refusal (Fastify's own answers to these are a different
 * JSON shape, and Node's answer to CONNECT is none). Given to Fastify's
 * constructor (startHttpApp's `fastify`) and to the server's 'connect' event.
 */

/**
 * `clientErrorHandler`: Node could not parse the HTTP request at all (headers
 * over 16 KB, a control character in a header, a bad request line or
 * Content-Length). There is no request object; the answer is written on the
 * socket, which is then closed.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // Its request was answered already (refused before its body was read), and the body is what came too slowly: just close.
  if (answeredBeforeBody.has(socket)) {
    socket.destroy(err);
    return;
  }
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? ApiError.malformed(REFUSAL.headersTooLarge)
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ApiError.malformed(REFUSAL.requestTimeout)
        : ApiError.malformed(REFUSAL.malformedHttp);
  writeOnSocket(socket, error);
  socket.destroy(err);
}

const answeredBeforeBody = new WeakSet<Duplex>();

/**
 * Notes that `req` is answered before its body has been read (the front door's
 * refusals). Node still reads the rest of the body, to keep the connection,
 * under the request timeout; if that runs out, the connection is closed without
 * the 408 answerClientError would write: the request already has its answer.
 */
export function answeredBeforeItsBody(req: IncomingMessage): void {
  if (req.complete) return;
  const socket = req.socket;
  answeredBeforeBody.add(socket);
  req.once('end', () => answeredBeforeBody.delete(socket));
}

/**
 * A CONNECT request (a proxy tunnel) never reaches Fastify: Node hands it to
 * the server's 'connect' listeners and, without one, closes the socket
 * without a word. Answered like any other method a route does not take.
 */
export function answerConnect(req: IncomingMessage, socket: Duplex): void {
  const path = (req.url ?? '').split('?')[0];
  const allowed = allowedMethods(path.replace(/\/+$/, ''));
  writeOnSocket(
    socket,
    allowed ? ApiError.malformed(REFUSAL.wrongMethod(allowed), { Allow: allowed }) : ApiError.of(REFUSAL.noRoute('CONNECT', path)),
  );
  socket.destroy();
}

function writeOnSocket(socket: Duplex, error: ApiError): void {
  if (!socket.writable) return;
  const requestId = randomUUID();
  const body = JSON.stringify(errorBody(error, requestId));
  const headers = Object.entries({ ...API_ANSWER_HEADERS, ...error.headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(
    `HTTP/1.1 ${error.httpStatus} ${STATUS_CODES[error.httpStatus]}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** `frameworkErrors`: the router refused the URL (a bad percent-encoding such as `%zz`). */
export function answerFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const error = err.code === 'FST_ERR_BAD_URL' ? ApiError.malformed(REFUSAL.malformedUrl) : ApiError.malformed(REFUSAL.malformedRequest());
  sendError(reply, error, String(request.id));
}
