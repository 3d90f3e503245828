import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { MESSAGE_TYPES, PartnerSearchRequestedV1, PartnerSearchRequestedV2 } from '@lr/contracts';
import { AmqpContext, HandleMessage } from '@lr/messaging';
import { PartnerSearchService } from './partner-search.service';

/** Thin handler: the service asks the partner and publishes the answer; the transport acks after that. */
@Controller()
export class PartnerSearchController {
  constructor(private readonly searches: PartnerSearchService) {}

  /** One partner (v1: no longer sent, handled while old messages drain). */
  @HandleMessage(MESSAGE_TYPES.PartnerSearchRequested)
  async search(@Payload() msg: PartnerSearchRequestedV1, @Ctx() ctx: AmqpContext): Promise<void> {
    await this.searches.answerAndPublish(msg, ctx.getMeta().correlationId);
  }

  /** Every partner of a search, each answered on its own. */
  @HandleMessage(MESSAGE_TYPES.PartnerSearchRequestedV2)
  async searchAll(@Payload() msg: PartnerSearchRequestedV2, @Ctx() ctx: AmqpContext): Promise<void> {
    await this.searches.answerAllAndPublish(msg, ctx.getMeta().correlationId);
  }
}
