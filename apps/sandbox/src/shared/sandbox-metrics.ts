import { counter, gauge } from '@lr/observability';

/** Requests answered (or abandoned) by endpoint and outcome; load tests read these. */
export const sandboxRequests = () => counter('sandbox_requests_total', 'Sandbox requests by endpoint and outcome', ['endpoint', 'outcome']);

/** Requests waiting out a delay or held open by outcome=timeout. */
export const sandboxPendingRequests = () => gauge('sandbox_pending_requests', 'Sandbox requests waiting to be answered');

export type SandboxEndpoint = 'school_lead' | 'partner_search' | 'partner_submit' | 'exchange_search' | 'exchange_submit';
