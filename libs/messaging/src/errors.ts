import { RpcException } from '@nestjs/microservices';

/**
 * Thrown by a handler when retrying cannot help (the message itself is wrong, a
 * referenced record will never exist): the message goes straight to its
 * consumer's dead-letter queue with this error's message as the reason.
 *
 * It extends RpcException and hands itself back from getError(), so Nest's
 * default RPC exception filter passes it through unchanged even on a handler
 * that does not use the failure-capturing decorators.
 */
export class PermanentError extends RpcException {
  readonly code = 'MESSAGE_PERMANENT_FAILURE';

  constructor(message: string) {
    super(message);
    this.name = 'PermanentError';
    Object.setPrototypeOf(this, new.target.prototype);
  }

  override getError(): object {
    return this;
  }
}

/** `AmqpConnection.request` got no reply in time; a reply arriving later is dropped. */
export class RequestTimeoutError extends Error {
  readonly code = 'MESSAGE_REQUEST_TIMEOUT';

  constructor(
    readonly type: string,
    readonly timeoutMs: number,
  ) {
    super(`no reply to ${type} within ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

/**
 * The broker could not take a message within the dependency timeout (down,
 * reconnecting, or the confirm did not come): callers answer 503, never hang.
 */
export class BrokerUnavailableError extends Error {
  readonly code = 'MESSAGE_BROKER_UNAVAILABLE';

  constructor(message: string) {
    super(message);
    this.name = 'BrokerUnavailableError';
  }
}

/**
 * The request was published (the broker confirmed it, so it is in its queue
 * and its handler will run) but the connection that would carry the reply is
 * gone: only the answer is lost. A BrokerUnavailableError, so callers that do
 * not tell the two apart still answer 503.
 */
export class ReplyLostError extends BrokerUnavailableError {
  constructor(message: string) {
    super(message);
    this.name = 'ReplyLostError';
  }
}

/** The replying handler failed for good (its request went to the dead-letter queue). */
export class RemoteHandlerError extends Error {
  readonly code = 'MESSAGE_REMOTE_HANDLER_FAILED';

  constructor(
    readonly type: string,
    reason: string,
  ) {
    super(`handler of ${type} failed: ${reason}`);
    this.name = 'RemoteHandlerError';
  }
}

/** A message type that is not in the routing table: publishing it would silently drop it. */
export class UnknownMessageTypeError extends Error {
  readonly code = 'MESSAGE_TYPE_UNKNOWN';

  constructor(type: string) {
    super(`message type "${type}" has no route in the messaging topology`);
    this.name = 'UnknownMessageTypeError';
  }
}
