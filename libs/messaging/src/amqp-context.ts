import { BaseRpcContext } from '@nestjs/microservices';
import type { ConsumeMessage } from 'amqplib';
import type { MessageMeta } from '@lr/contracts';

type AmqpContextArgs = [message: ConsumeMessage, meta: MessageMeta, consumer: string];

/**
 * The `@Ctx()` of a message handler: the message's metadata (pass it to
 * runOnce for idempotency), the consumer it was delivered to and the raw
 * delivery. It also carries the handler's original error past Nest's RPC
 * exception filter, which would otherwise reduce it to "Internal server error".
 */
export class AmqpContext extends BaseRpcContext<AmqpContextArgs> {
  private captured: { error: unknown } | undefined;

  getMeta(): MessageMeta {
    return this.args[1];
  }

  getConsumer(): string {
    return this.args[2];
  }

  getMessage(): ConsumeMessage {
    return this.args[0];
  }

  /** True when the broker delivers this message again (a consumer died before acking it). */
  isRedelivery(): boolean {
    return this.args[0].fields.redelivered;
  }

  /** Called by the CaptureHandlerErrors exception filter; the first error wins (the cause, not a later wrapper). */
  recordFailure(error: unknown): void {
    this.captured ??= { error };
  }

  get failure(): { error: unknown } | undefined {
    return this.captured;
  }
}
