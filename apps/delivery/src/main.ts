import Redis from 'ioredis';
import { SearchRepository } from '@lr/persistence';
import { REDIS_CLIENT, runWorker } from '@lr/platform';
import { SearchStatePublisher } from '@lr/search-state';
import { BuyerCalls } from './deliver-lead/buyer-calls';
import { DeliverLeadHandler } from './deliver-lead/deliver-lead.handler';
import { DeliverLead } from './deliver-lead/deliver-lead.usecase';
import { PendingLeadsGauge } from './pending-leads/pending-leads.gauge';
import { RevocationRelay } from './revocations/revocation-relay';
import { SendRevocationHandler } from './revocations/send-revocation.handler';
import { SendRevocation } from './revocations/send-revocation.usecase';

/**
 * Delivers reserved leads to their buyers: the school's system (sandbox and
 * generic JSON adapters) or the partner's (through partner-adapter), at most
 * once; translates the buyer's answer to a standardized reason and books it
 * (docs/submit.md). Reports the leads still waiting for their buyer's answer
 * (PendingLeadsGauge). Tells buyers of opted-out people (RevocationRelay,
 * SendRevocation: docs/opt-outs.md).
 */
runWorker({
  app: 'delivery',
  redis: true,
  keyStore: true,
  controllers: [DeliverLeadHandler, SendRevocationHandler],
  providers: [
    DeliverLead,
    BuyerCalls,
    {
      provide: SearchStatePublisher,
      inject: [REDIS_CLIENT, SearchRepository],
      useFactory: (redis: Redis, searches: SearchRepository) => new SearchStatePublisher(redis, searches),
    },
    PendingLeadsGauge,
    SendRevocation,
    RevocationRelay,
  ],
});
