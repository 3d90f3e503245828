import Redis from 'ioredis';
import { SearchRepository } from '@lr/persistence';
import { CampaignCatalog, REDIS_CLIENT, runWorker } from '@lr/platform';
import { SearchStatePublisher } from '@lr/search-state';
import { MergePartnerAnswerHandler } from './merge-partner-answer/merge-partner-answer.handler';
import { MergePartnerAnswer } from './merge-partner-answer/merge-partner-answer.usecase';
import { StartSearchHandler } from './start-search/start-search.handler';
import { StartSearch } from './start-search/start-search.usecase';

/** Owns a search's life: judges the campaign's offers, stores the search, gathers partner results, writes the growing list to Redis. */
runWorker({
  app: 'search-orchestrator',
  controllers: [StartSearchHandler, MergePartnerAnswerHandler],
  providers: [
    CampaignCatalog,
    {
      provide: SearchStatePublisher,
      inject: [REDIS_CLIENT, SearchRepository],
      useFactory: (redis: Redis, searches: SearchRepository) => new SearchStatePublisher(redis, searches),
    },
    StartSearch,
    MergePartnerAnswer,
  ],
  redis: true,
});
