import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { MESSAGE_TYPES, PartnerSearchAnsweredV1, SearchAnswerV1, SearchRequestedV1 } from '@lr/contracts';
import { AmqpContext, HandleMessage } from '@lr/messaging';
import { PartnerAnswerService } from './partner-answer.service';
import { SearchStartService } from './search-start.service';

/** Thin handlers: decode, call the use case, reply (the transport acks after the reply is confirmed). */
@Controller()
export class SearchRequestsController {
  constructor(
    private readonly searches: SearchStartService,
    private readonly partnerAnswers: PartnerAnswerService,
  ) {}

  @HandleMessage(MESSAGE_TYPES.SearchRequested)
  start(@Payload() msg: SearchRequestedV1, @Ctx() ctx: AmqpContext): Promise<SearchAnswerV1 | null> {
    return this.searches.start(msg, ctx.getMeta());
  }

  @HandleMessage(MESSAGE_TYPES.PartnerSearchAnswered)
  partnerAnswered(@Payload() msg: PartnerSearchAnsweredV1): Promise<void> {
    return this.partnerAnswers.merge(msg);
  }
}
