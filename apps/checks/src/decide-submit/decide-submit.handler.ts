import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DeliveryRequestedV1, MESSAGE_TYPES, SubmitAnswerV1, SubmitRequestedV1 } from '@lr/contracts';
import { Forward, HandleMessage } from '@lr/messaging';
import { DecideSubmit } from './decide-submit.usecase';

/**
 * gateway -> here (request/reply, a routing slip): the answer goes back at
 * once for a refusal or a held test lead; a reserved lead goes on to
 * delivery, whose handler answers the gateway (no one waits for another).
 */
@Controller()
export class DecideSubmitHandler {
  constructor(private readonly decideSubmit: DecideSubmit) {}

  @HandleMessage(MESSAGE_TYPES.SubmitRequested)
  async handle(@Payload() msg: SubmitRequestedV1): Promise<SubmitAnswerV1 | Forward<DeliveryRequestedV1>> {
    const outcome = await this.decideSubmit.run(msg);
    if ('answer' in outcome) return outcome.answer;
    return new Forward(MESSAGE_TYPES.DeliveryRequested, outcome.deliver, { messageId: `deliver:${msg.leadId}` });
  }
}
