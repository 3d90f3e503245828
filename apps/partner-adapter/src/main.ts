import { runWorker } from '@lr/platform';

/**
 * Calls partner networks (timeouts, circuit breaking), maps their answers to
 * result entries and posts chosen results to partners. Consumes its own queue;
 * its handlers come with the search issue.
 */
runWorker({ app: 'partner-adapter' });
