import { runWorker } from '@lr/platform';
import { PartnerAdapterRegistry } from './adapters/adapter-registry';
import { PartnerCalls } from './calls/partner-calls';
import { PartnerCircuitBreakers } from './calls/circuit-breakers';
import { PartnerSearchController } from './search/partner-search.controller';
import { PartnerSearchService } from './search/partner-search.service';
import { PartnerSubmitController } from './submit/partner-submit.controller';
import { PartnerSubmitService } from './submit/partner-submit.service';

/**
 * Calls partner networks with deadlines and a circuit breaker per partner,
 * validates and maps their answers to our offers, and answers the orchestrator
 * (docs/partner-adapter.md).
 */
runWorker({
  app: 'partner-adapter',
  controllers: [PartnerSearchController, PartnerSubmitController],
  providers: [PartnerAdapterRegistry, PartnerCircuitBreakers, PartnerCalls, PartnerSearchService, PartnerSubmitService],
});
