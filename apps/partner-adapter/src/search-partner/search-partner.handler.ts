import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { MESSAGE_TYPES, PartnerSearchRequestedV1 } from '@lr/contracts';
import { AmqpContext, HandleMessage } from '@lr/messaging';
import { SearchPartner } from './search-partner.usecase';

/** Thin handler: the service asks the partner and publishes the answer; the transport acks after that. */
@Controller()
export class SearchPartnerHandler {
  constructor(private readonly searches: SearchPartner) {}

  @HandleMessage(MESSAGE_TYPES.PartnerSearchRequested)
  async search(@Payload() msg: PartnerSearchRequestedV1, @Ctx() ctx: AmqpContext): Promise<void> {
    await this.searches.answerAndPublish(msg, ctx.getMeta().correlationId);
  }
}
