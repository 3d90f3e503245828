import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { MESSAGE_TYPES, PartnerSubmitAnswerV1, PartnerSubmitRequestedV1 } from '@lr/contracts';
import { HandleMessage } from '@lr/messaging';
import { PartnerSubmitService } from './partner-submit.service';

@Controller()
export class PartnerSubmitController {
  constructor(private readonly submits: PartnerSubmitService) {}

  @HandleMessage(MESSAGE_TYPES.PartnerSubmitRequested)
  submit(@Payload() req: PartnerSubmitRequestedV1): Promise<PartnerSubmitAnswerV1> {
    return this.submits.submit(req);
  }
}
