import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { MESSAGE_TYPES, RevocationRequestedV1 } from '@lr/contracts';
import { HandleMessage } from '@lr/messaging';
import { SendRevocation } from './send-revocation.usecase';

/** One revocation notice to its buyer; a failure is retried with the back-off, then dead-lettered. */
@Controller()
export class SendRevocationHandler {
  constructor(private readonly sendRevocation: SendRevocation) {}

  @HandleMessage(MESSAGE_TYPES.RevocationRequested)
  handle(@Payload() msg: RevocationRequestedV1): Promise<void> {
    return this.sendRevocation.run(msg);
  }
}
