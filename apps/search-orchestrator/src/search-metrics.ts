import { counter } from '@lr/observability';

/** Result entries added to searches' lists (what affiliates are shown), by source: `own` (first answer) or `partner` (merged later). */
export const resultsShown = counter(
  'search_results_shown_total',
  'Result entries added to searches (shown to affiliates), by source (own, partner)',
  ['source'],
);
