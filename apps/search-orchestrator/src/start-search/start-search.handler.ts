import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { MESSAGE_TYPES, SearchRequestedV1 } from '@lr/contracts';
import { AmqpConnection, HandleMessage, RawReply } from '@lr/messaging';
import { StartSearch } from './start-search.usecase';

/**
 * gateway -> here (request/reply): the partner request goes out (one for
 * every partner network of the search; its id is the search's, so a
 * redelivery's copy is the same message), then the reply: the search answer's HTTP body, which the gateway sends on
 * as it is.
 */
@Controller()
export class StartSearchHandler {
  constructor(
    private readonly startSearch: StartSearch,
    private readonly amqp: AmqpConnection,
  ) {}

  @HandleMessage(MESSAGE_TYPES.SearchRequested)
  async handle(@Payload() msg: SearchRequestedV1): Promise<RawReply | null> {
    const started = await this.startSearch.run(msg);
    const request = started.partnerRequest;
    if (request)
      await this.amqp.publish(MESSAGE_TYPES.PartnerSearchRequested, request, { messageId: `partner-search:${request.searchId}` });
    return started.body ? new RawReply(started.body) : null;
  }
}
