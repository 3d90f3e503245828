import type { FormField, PartnerRef } from '@lr/contracts';
import type { CapRule } from '../caps/caps';
import type { Cents } from '../money/money';
import type { PayoutTerms } from '../payouts/payouts';
import type { CatalogProgram, DeliverySettings, EligibilityRules } from './catalog.types';
import type { OfferSource, OfferStatus, OfferType } from './catalog-vocabulary';

/**
 * One offer as a campaign sells it: the catalog's offer (its school, type,
 * eligibility, programs, questions, caps, delivery or partner) with the
 * campaign's payout terms and caps. What a search shows and a submit sells is
 * decided on this; persistence maps its rows into it (the catalog repository),
 * never the reverse.
 */
export interface CampaignOffer {
  offerId: string;
  campaignId: string;
  name: string;
  schoolId: string;
  schoolName: string;
  schoolLogoUrl: string | null;
  source: OfferSource;
  offerType: OfferType;
  status: OfferStatus;
  priority: number;
  /** The consent statement to show with this offer's results (a partner may supply its own). */
  tcpaText: string | null;
  resultTtlSeconds: number;
  duplicateWindowDays: number;
  eligibility: EligibilityRules;
  /** Own offers' programs in catalog order; a partner supplies its own on each result. */
  programs: CatalogProgram[];
  /** Own offers' questions (the contract's `form_fields`), in catalog order. */
  formFields: FormField[];
  /** The caller's payout terms on this campaign (never the price). */
  payouts: PayoutTerms;
  /** What the buyer pays: never shown to affiliates. */
  price: Cents | null;
  /** The offer's own caps and this campaign's caps on it. */
  caps: CapRule[];
  /** Own offers: how the school's system is reached. */
  delivery: DeliverySettings | null;
  /** Partner offers: the partner's id of the offer, and the partner network. */
  externalId: string | null;
  partner: PartnerRef | null;
}
