import { runWorker } from '@lr/platform';

/**
 * Turns a submit into a decision: re-checks, reserves cap and sale slots
 * atomically, delivers to the school's system, books the payout. Consumes its
 * own queue; its handlers come with the submit issue.
 */
runWorker({ app: 'delivery' });
