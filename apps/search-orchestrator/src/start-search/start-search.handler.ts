import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { MESSAGE_TYPES, SearchRequestedV1 } from '@lr/contracts';
import { AmqpConnection, HandleMessage, RawReply } from '@lr/messaging';
import { StartSearch } from './start-search.usecase';

/**
 * gateway -> here (request/reply): the partner requests go out (their ids are
 * per search and partner, so a redelivery's copies are the same messages),
 * then the reply: the search answer's HTTP body, which the gateway sends on
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
    await Promise.all(
      started.partnerRequests.map((r) =>
        this.amqp.publish(MESSAGE_TYPES.PartnerSearchRequested, r, { messageId: `partner-search:${r.searchId}:${r.partner.id}` }),
      ),
    );
    return started.body ? new RawReply(started.body) : null;
  }
}
