import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { MESSAGE_TYPES, PartnerSearchAnsweredV1 } from '@lr/contracts';
import { HandleMessage } from '@lr/messaging';
import { MergePartnerAnswer } from './merge-partner-answer.usecase';

/** partner-adapter -> here (a command): one partner's answer for one search. */
@Controller()
export class MergePartnerAnswerHandler {
  constructor(private readonly mergePartnerAnswer: MergePartnerAnswer) {}

  @HandleMessage(MESSAGE_TYPES.PartnerSearchAnswered)
  handle(@Payload() msg: PartnerSearchAnsweredV1): Promise<void> {
    return this.mergePartnerAnswer.run(msg);
  }
}
