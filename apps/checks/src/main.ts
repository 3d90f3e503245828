import { runWorker } from '@lr/platform';

/**
 * Duplicate, cap, eligibility, required-answer and consent rules, used at search
 * and again in full at submit. Consumes its own queue; its handlers come with
 * the search and submit issues.
 */
runWorker({ app: 'checks' });
