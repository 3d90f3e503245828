import { runWorker } from '@lr/platform';
import { SearchRequestsController } from './search-requests.controller';
import { SearchStartService } from './search-start.service';

/** Owns a search's life: stores it, gathers own and partner results, writes the growing list to Redis. */
runWorker({ app: 'search-orchestrator', controllers: [SearchRequestsController], providers: [SearchStartService], redis: true });
