import { ConsentChainer } from '@lr/jobs';
import { CampaignCatalog, runWorker } from '@lr/platform';
import { DecideSubmitHandler } from './decide-submit/decide-submit.handler';
import { DecideSubmit } from './decide-submit/decide-submit.usecase';

/**
 * Decides submits and direct posts: the duplicate, cap, eligibility,
 * required-answer and consent rules of libs/domain, and the atomic sale
 * reservation; a reserved lead goes on to delivery. Links the consent
 * events it appends into the consent chain (ConsentChainer).
 */
runWorker({
  app: 'checks',
  keyStore: true,
  controllers: [DecideSubmitHandler],
  providers: [CampaignCatalog, DecideSubmit, ConsentChainer],
});
