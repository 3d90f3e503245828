import { counter, gauge, histogram } from '@lr/observability';

/** Partner calls run up to the search's 45 s: the buckets reach that far. */
const CALL_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 10, 15, 20, 30, 45];

/** The partner-adapter's metrics; partners are labelled by their catalog name. */
export const partnerMetrics = {
  searchDuration: histogram(
    'partner_search_duration_seconds',
    'Time from taking a partner search request to its answer, by outcome',
    ['partner', 'outcome'],
    CALL_BUCKETS,
  ),
  submitDuration: histogram(
    'partner_submit_duration_seconds',
    'Time from taking a partner submit request to its answer, by outcome (accepted, rejected, duplicate, timeout, error)',
    ['partner', 'outcome'],
    CALL_BUCKETS,
  ),
  calls: counter('partner_calls_total', 'Partner calls by operation (search, submit) and outcome', ['partner', 'operation', 'outcome']),
  circuitOpen: gauge('partner_circuit_open', "1 while a partner's circuit breaker is open or half-open, 0 when closed", ['partner']),
  resultsDropped: counter(
    'partner_results_dropped_total',
    'Result entries left out of partner answers: malformed, holding markup, about an offer not asked, or a repeat',
    ['partner', 'reason'],
  ),
  textRefused: counter(
    'partner_text_refused_total',
    "Result entries refused because a display string held markup, by the partner and the result's field",
    ['partner', 'field'],
  ),
};
