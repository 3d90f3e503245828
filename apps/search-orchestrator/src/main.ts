import { CampaignCatalog, runWorker } from '@lr/platform';
import { PartnerAnswerService } from './partner-answer.service';
import { SearchRequestsController } from './search-requests.controller';
import { SearchResultsRepository } from './search-results.repository';
import { SearchStartService } from './search-start.service';
import { SearchStatePublisher } from '@lr/platform';

/** Owns a search's life: stores it, gathers own and partner results, writes the growing list to Redis. */
runWorker({
  app: 'search-orchestrator',
  controllers: [SearchRequestsController],
  providers: [CampaignCatalog, SearchStartService, PartnerAnswerService, SearchResultsRepository, SearchStatePublisher],
  redis: true,
});
