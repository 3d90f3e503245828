import type { FormField, PartnerRef } from '../vocabulary/offers';
import type { CapRule } from '../caps/caps';
import { centsOrNull, type Cents } from '../money/money';
import { payoutTerms, type PayoutTerms } from '../payouts/payouts';
import type {
  CatalogCampaignOffer,
  CatalogOffer,
  CatalogProgram,
  CatalogQuestion,
  DeliverySettings,
  EligibilityRules,
} from './catalog.types';
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

/** What a campaign sets on one of its offers: the caller's payout terms and the campaign's caps on it. */
export interface CampaignTerms {
  payouts: PayoutTerms;
  /** This campaign's caps on the offer (`campaignId` set). */
  caps: CapRule[];
}

/** A campaign offer's terms as a catalog file gives them (CATALOG.md `campaigns[].offers[]`). */
export function campaignTermsOf(campaignId: string, co: CatalogCampaignOffer): CampaignTerms {
  return {
    payouts: payoutTerms(co.payout, co.program_payouts),
    caps: co.caps.map((c) => ({ offerId: co.offer_id, campaignId, period: c.period, limit: c.limit, timezone: c.timezone })),
  };
}

/** The campaign's terms of an offer as the catalog holds it (its campaign's caps, not the offer's own). */
export function campaignTermsFrom(offer: CampaignOffer): CampaignTerms {
  return { payouts: offer.payouts, caps: offer.caps.filter((c) => c.campaignId !== null) };
}

/** An offer under another campaign's terms: its own caps kept, the campaign's replaced. */
export function underCampaign(offer: CampaignOffer, campaignId: string, terms: CampaignTerms): CampaignOffer {
  return { ...offer, campaignId, payouts: terms.payouts, caps: [...offer.caps.filter((c) => c.campaignId === null), ...terms.caps] };
}

/**
 * A catalog file's offer as a campaign sells it (what `catalog apply` would
 * make of it, read back by the catalog repository): its school and partner
 * as the file or the database has them.
 */
export function campaignOfferFromCatalog(
  o: CatalogOffer,
  school: { name: string; logoUrl: string | null },
  partner: PartnerRef | null,
  campaignId: string,
  terms: CampaignTerms,
): CampaignOffer {
  return {
    offerId: o.id,
    campaignId,
    name: o.name,
    schoolId: o.school_id,
    schoolName: school.name,
    schoolLogoUrl: school.logoUrl,
    source: o.source,
    offerType: o.offer_type,
    status: o.status,
    priority: o.priority,
    tcpaText: o.tcpa_text,
    resultTtlSeconds: o.result_ttl_seconds,
    duplicateWindowDays: o.duplicate_window_days,
    eligibility: o.eligibility,
    programs: o.programs.map((p) => ({ value: p.value, label: p.label, eligibility: p.eligibility })),
    formFields: formFieldsOf(o.form_fields),
    payouts: terms.payouts,
    price: centsOrNull(o.price),
    caps: [
      ...o.caps.map((c) => ({ offerId: o.id, campaignId: null, period: c.period, limit: c.limit, timezone: c.timezone })),
      ...terms.caps,
    ],
    delivery: o.delivery,
    externalId: o.external_id,
    partner,
  };
}

/** A catalog question as stored (CATALOG.md `form_fields[]`, the `questions` rows). */
export type StoredQuestion = Pick<CatalogQuestion, 'name' | 'label' | 'required' | 'required_when' | 'options'> & { type: string };

/** An offer's questions as a result shows them (the contract's `form_fields`): absent keys where the catalog has none. */
export function formFieldsOf(questions: readonly StoredQuestion[]): FormField[] {
  return questions.map((q): FormField => ({
    name: q.name,
    label: q.label,
    type: q.type,
    required: q.required,
    ...(q.required_when ? { required_when: { program_ids: [...q.required_when.program_ids] } } : {}),
    ...(q.options ? { options: q.options.map((x) => ({ value: x.value, label: x.label })) } : {}),
  }));
}
