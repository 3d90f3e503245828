import { Affiliate } from './affiliate.entity';
import { ApiKey } from './api-key.entity';
import { Campaign } from './campaign.entity';
import { CampaignOffer } from './campaign-offer.entity';
import { Cap } from './cap.entity';
import { CapUsage } from './cap-usage.entity';
import { ConsentEvidence } from './consent-evidence.entity';
import { ConsentLedgerRecord } from './consent-ledger.entity';
import { ConsentSeal } from './consent-seal.entity';
import { DedupeKey } from './dedupe-key.entity';
import { DeliveryAttempt } from './delivery-attempt.entity';
import { IdempotencyKey } from './idempotency-key.entity';
import { Lead } from './lead.entity';
import { LeadReturn } from './lead-return.entity';
import { Offer } from './offer.entity';
import { OptOut, RevocationNotice, Suppression, SuppressionAudit } from './opt-out.entity';
import { Partner } from './partner.entity';
import { ProcessedMessage } from './processed-message.entity';
import { Program } from './program.entity';
import { Question } from './question.entity';
import { Sale } from './sale.entity';
import { School } from './school.entity';
import { Search } from './search.entity';
import { ResultTemplate } from './result-template.entity';
import { SearchPartnerCall } from './search-partner-call.entity';

export {
  IdempotencyKey,
  OptOut,
  Suppression,
  SuppressionAudit,
  RevocationNotice,
  Affiliate,
  ApiKey,
  Campaign,
  CampaignOffer,
  Cap,
  CapUsage,
  ConsentEvidence,
  ConsentLedgerRecord,
  ConsentSeal,
  DedupeKey,
  DeliveryAttempt,
  Lead,
  LeadReturn,
  Offer,
  Partner,
  ProcessedMessage,
  Program,
  Question,
  Sale,
  School,
  Search,
  ResultTemplate,
  SearchPartnerCall,
};
export type { StoredKeyLimits } from './api-key.entity';
export { PARTNER_CALL_STATUSES, type PartnerCallStatus } from './search-partner-call.entity';
export { SALE_STATUSES, type SaleStatus } from './sale.entity';
export { moneyTransformer } from './column-types';

/** Every entity; the data source registers exactly these. */
export const ENTITIES = [
  ProcessedMessage,
  Affiliate,
  School,
  Partner,
  Offer,
  Program,
  Question,
  Campaign,
  CampaignOffer,
  Cap,
  ApiKey,
  Search,
  ResultTemplate,
  SearchPartnerCall,
  Lead,
  ConsentEvidence,
  ConsentLedgerRecord,
  ConsentSeal,
  Sale,
  CapUsage,
  DedupeKey,
  DeliveryAttempt,
  IdempotencyKey,
  OptOut,
  Suppression,
  SuppressionAudit,
  RevocationNotice,
  LeadReturn,
];
