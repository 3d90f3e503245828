import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { MESSAGE_TYPES, SubmitAnswerV1, SubmitRequestedV1 } from '@lr/contracts';
import { HandleMessage } from '@lr/messaging';
import { SubmitService } from './submit.service';

/** Request/reply from the gateway; the transport acks after the reply is confirmed. A reply after the gateway stopped waiting is dropped. */
@Controller()
export class SubmitController {
  constructor(private readonly submits: SubmitService) {}

  @HandleMessage(MESSAGE_TYPES.SubmitRequested)
  submit(@Payload() msg: SubmitRequestedV1): Promise<SubmitAnswerV1> {
    return this.submits.handle(msg);
  }
}
