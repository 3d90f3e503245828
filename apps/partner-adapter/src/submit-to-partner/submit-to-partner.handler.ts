import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { MESSAGE_TYPES, PartnerSubmitAnswerV1, PartnerSubmitRequestedV1 } from '@lr/contracts';
import { AmqpContext, HandleMessage } from '@lr/messaging';
import { SubmitToPartner } from './submit-to-partner.usecase';

@Controller()
export class SubmitToPartnerHandler {
  constructor(private readonly submits: SubmitToPartner) {}

  @HandleMessage(MESSAGE_TYPES.PartnerSubmitRequested)
  submit(@Payload() req: PartnerSubmitRequestedV1, @Ctx() ctx: AmqpContext): Promise<PartnerSubmitAnswerV1> {
    return this.submits.submit(req, ctx.getMeta());
  }
}
