import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { MESSAGE_TYPES, OffersCheckAnswerV1, OffersCheckRequestedV1 } from '@lr/contracts';
import { HandleMessage } from '@lr/messaging';
import { SearchChecksService } from './search-checks.service';

/** Request/reply from the search-orchestrator: the reply is the answer. */
@Controller()
export class SearchChecksController {
  constructor(private readonly checks: SearchChecksService) {}

  @HandleMessage(MESSAGE_TYPES.OffersCheckRequested)
  check(@Payload() req: OffersCheckRequestedV1): Promise<OffersCheckAnswerV1> {
    return this.checks.check(req);
  }
}
