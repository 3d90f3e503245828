import { CampaignCatalog, runWorker, SearchStatePublisher } from '@lr/platform';
import { MergePartnerAnswerHandler } from './merge-partner-answer/merge-partner-answer.handler';
import { MergePartnerAnswer } from './merge-partner-answer/merge-partner-answer.usecase';
import { StartSearchHandler } from './start-search/start-search.handler';
import { StartSearch } from './start-search/start-search.usecase';

/** Owns a search's life: judges the campaign's offers, stores the search, gathers partner results, writes the growing list to Redis. */
runWorker({
  app: 'search-orchestrator',
  controllers: [StartSearchHandler, MergePartnerAnswerHandler],
  providers: [CampaignCatalog, SearchStatePublisher, StartSearch, MergePartnerAnswer],
  redis: true,
});
