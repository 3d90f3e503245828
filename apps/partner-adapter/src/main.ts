import { runWorker } from '@lr/platform';
import { PARTNER_ADAPTER_WORKER } from './partner-adapter.worker';

/**
 * Calls partner networks with deadlines and a circuit breaker per partner,
 * validates and maps their answers to our offers, and answers the orchestrator
 * (docs/partner-adapter.md).
 */
runWorker(PARTNER_ADAPTER_WORKER);
