import type { PublishOptions } from './envelope';

/**
 * A handler's answer that is not a JSON reply:
 * - `Forward`: the message goes on to the next handler of a routing slip
 *   instead of being answered here. The transport publishes it with the
 *   request's replyTo and the original request's id (x-reply-for), then acks:
 *   the next handler answers the requester, who waits for one reply whichever
 *   handler sends it. No handler waits for another (no nested request/reply).
 * - `RawReply`: bytes the requester uses as they are (an HTTP body), with a
 *   few headers; they are never parsed and serialized again on the way.
 */
export class Forward<T = unknown> {
  constructor(
    readonly type: string,
    readonly payload: T,
    readonly opts: Pick<PublishOptions, 'messageId' | 'headers'> = {},
  ) {}
}

export class RawReply {
  constructor(
    readonly body: Buffer,
    readonly headers: Record<string, string> = {},
  ) {}
}
