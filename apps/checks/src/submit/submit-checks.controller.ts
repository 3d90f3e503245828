import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { MESSAGE_TYPES, SubmitChecksAnswerV1, SubmitChecksRequestedV1 } from '@lr/contracts';
import { HandleMessage } from '@lr/messaging';
import { SubmitChecksService } from './submit-checks.service';

/** Request/reply from delivery: the reply is the verdict (read-only, so a redelivery only answers again). */
@Controller()
export class SubmitChecksController {
  constructor(private readonly checks: SubmitChecksService) {}

  @HandleMessage(MESSAGE_TYPES.SubmitChecksRequested)
  check(@Payload() req: SubmitChecksRequestedV1): Promise<SubmitChecksAnswerV1> {
    return this.checks.check(req);
  }
}
