import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DeliveryRequestedV1, MESSAGE_TYPES, SubmitAnswerV1 } from '@lr/contracts';
import { HandleMessage } from '@lr/messaging';
import { DeliverLead } from './deliver-lead.usecase';

/** The submit's routing slip, second step (checks -> here): the reply goes to the gateway that asked. */
@Controller()
export class DeliverLeadHandler {
  constructor(private readonly deliverLead: DeliverLead) {}

  @HandleMessage(MESSAGE_TYPES.DeliveryRequested)
  handle(@Payload() msg: DeliveryRequestedV1): Promise<SubmitAnswerV1> {
    return this.deliverLead.run(msg);
  }
}
