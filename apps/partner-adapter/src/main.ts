import { runWorker } from '@lr/platform';
import { PartnerAdapterRegistry } from './adapters/adapter-registry';
import { PartnerCalls } from './calls/partner-calls';
import { PartnerCircuitBreakers } from './calls/circuit-breakers';
import { SearchPartnerHandler } from './search-partner/search-partner.handler';
import { SearchPartner } from './search-partner/search-partner.usecase';
import { SubmitToPartnerHandler } from './submit-to-partner/submit-to-partner.handler';
import { SubmitToPartner } from './submit-to-partner/submit-to-partner.usecase';

/**
 * Calls partner networks with deadlines and a circuit breaker per partner,
 * validates and maps their answers to our offers, and answers the orchestrator
 * (docs/partner-adapter.md).
 */
runWorker({
  app: 'partner-adapter',
  controllers: [SearchPartnerHandler, SubmitToPartnerHandler],
  providers: [PartnerAdapterRegistry, PartnerCircuitBreakers, PartnerCalls, SearchPartner, SubmitToPartner],
});
