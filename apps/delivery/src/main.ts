import { runWorker, SearchStatePublisher } from '@lr/platform';
import { BuyerDelivery } from './submit/buyer-delivery';
import { SaleLedger } from './submit/sale-ledger';
import { SubmitController } from './submit/submit.controller';
import { SubmitService } from './submit/submit.service';

/**
 * Turns a submit into a decision: re-checks (through checks), reserves cap and
 * sale slots atomically, delivers to the school's system (or the partner's,
 * through partner-adapter) at most once, translates the buyer's answer to a
 * standardized reason, books the payout (docs/submit.md).
 */
runWorker({
  app: 'delivery',
  redis: true,
  controllers: [SubmitController],
  providers: [SubmitService, SaleLedger, BuyerDelivery, SearchStatePublisher],
});
