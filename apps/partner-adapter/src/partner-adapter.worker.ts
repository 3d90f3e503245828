import type { WorkerSpec } from '@lr/platform';
import { PartnerAdapterRegistry } from './adapters/adapter-registry';
import { PartnerCalls } from './calls/partner-calls';
import { PartnerCircuitBreakers } from './calls/circuit-breakers';
import { SearchPartnerHandler } from './search-partner/search-partner.handler';
import { SearchPartner } from './search-partner/search-partner.usecase';
import { SubmitToPartnerHandler } from './submit-to-partner/submit-to-partner.handler';
import { SubmitToPartner } from './submit-to-partner/submit-to-partner.usecase';

/** The worker's handlers and providers, apart from main.ts so that the integration tests start the same worker. */
export const PARTNER_ADAPTER_WORKER: WorkerSpec = {
  app: 'partner-adapter',
  keyStore: true,
  controllers: [SearchPartnerHandler, SubmitToPartnerHandler],
  providers: [PartnerAdapterRegistry, PartnerCircuitBreakers, PartnerCalls, SearchPartner, SubmitToPartner],
};
