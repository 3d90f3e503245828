import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { MESSAGE_TYPES, PartnerSearchAnsweredV2 } from '@lr/contracts';
import { HandleMessage } from '@lr/messaging';
import { MergePartnerAnswer } from './merge-partner-answer.usecase';

/** partner-adapter -> here (a command): the answers of one or more partners of one search. */
@Controller()
export class MergePartnerAnswerHandler {
  constructor(private readonly mergePartnerAnswer: MergePartnerAnswer) {}

  @HandleMessage(MESSAGE_TYPES.PartnerSearchAnswered)
  handle(@Payload() msg: PartnerSearchAnsweredV2): Promise<void> {
    return this.mergePartnerAnswer.run(msg);
  }
}
