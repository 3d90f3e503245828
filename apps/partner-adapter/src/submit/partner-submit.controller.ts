import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { MESSAGE_TYPES, PartnerSubmitAnswerV1, PartnerSubmitRequestedV1 } from '@lr/contracts';
import { AmqpContext, HandleMessage } from '@lr/messaging';
import { PartnerSubmitService } from './partner-submit.service';

@Controller()
export class PartnerSubmitController {
  constructor(private readonly submits: PartnerSubmitService) {}

  @HandleMessage(MESSAGE_TYPES.PartnerSubmitRequested)
  submit(@Payload() req: PartnerSubmitRequestedV1, @Ctx() ctx: AmqpContext): Promise<PartnerSubmitAnswerV1> {
    return this.submits.submit(req, ctx.getMeta());
  }
}
