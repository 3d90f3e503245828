import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DeliveryRequestedV1, MESSAGE_TYPES, SubmitAnswerV1, SubmitRequestedV1 } from '@lr/contracts';
import { Forward, HandleMessage } from '@lr/messaging';
import { DeliverLead } from './deliver-lead.usecase';

/** The submit's routing slip, second step (checks -> here): the reply goes to the gateway that asked. */
@Controller()
export class DeliverLeadHandler {
  constructor(private readonly deliverLead: DeliverLead) {}

  @HandleMessage(MESSAGE_TYPES.DeliveryRequested)
  handle(@Payload() msg: DeliveryRequestedV1): Promise<SubmitAnswerV1> {
    return this.deliverLead.run(msg);
  }

  /**
   * A submit of the previous release (gateway -> delivery), still queued or
   * replayed from the dead-letter queue during a rolling deploy: it goes to
   * checks, which decides it, under the same lead id (docs/runbooks/deploy.md).
   */
  @HandleMessage(MESSAGE_TYPES.LegacySubmitRequested)
  forwardLegacySubmit(@Payload() msg: SubmitRequestedV1): Forward<SubmitRequestedV1> {
    return new Forward(MESSAGE_TYPES.SubmitRequested, msg, { messageId: `submit:${msg.leadId}` });
  }
}
