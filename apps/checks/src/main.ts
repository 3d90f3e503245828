import { CampaignCatalog, runWorker } from '@lr/platform';
import { SearchChecksController } from './search/search-checks.controller';
import { SearchChecksService } from './search/search-checks.service';
import { SubmitChecksController } from './submit/submit-checks.controller';
import { SubmitChecksService } from './submit/submit-checks.service';

/**
 * Duplicate, cap, eligibility, required-answer and consent rules, used at search
 * (which offers a lead may be shown) and again in full at submit.
 */
runWorker({
  app: 'checks',
  controllers: [SearchChecksController, SubmitChecksController],
  providers: [SearchChecksService, SubmitChecksService, CampaignCatalog],
});
