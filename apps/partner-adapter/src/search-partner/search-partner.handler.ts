import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { MESSAGE_TYPES, PartnerSearchRequestedV2 } from '@lr/contracts';
import { AmqpContext, HandleMessage } from '@lr/messaging';
import { SearchPartner } from './search-partner.usecase';

/** A thin handler: the use case asks the partners and publishes their answers; the transport acks after that. */
@Controller()
export class SearchPartnerHandler {
  constructor(private readonly searches: SearchPartner) {}

  @HandleMessage(MESSAGE_TYPES.PartnerSearchRequested)
  async search(@Payload() msg: PartnerSearchRequestedV2, @Ctx() ctx: AmqpContext): Promise<void> {
    await this.searches.answerAllAndPublish(msg, ctx.getMeta().correlationId);
  }
}
