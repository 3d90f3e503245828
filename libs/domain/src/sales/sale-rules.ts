import type { OfferType } from '../catalog/catalog-vocabulary';
import { Decision, SUBMIT } from '../decisions/decision-catalog';

/** How many sales a lead may have at most (affiliate-api.md, "Offer types": `max_accepted_submissions`, shown in every search answer). */
export const MAX_ACCEPTED_SUBMISSIONS = 3;

/** A live (reserved or accepted) sale of a lead group. */
export interface LiveSale {
  offerId: string;
  schoolId: string;
  offerType: OfferType;
}

export type SaleRefusal = 'already_sold_to_offer' | 'sold_true_exclusive' | 'sale_limit_reached' | 'school_sold_exclusive' | 'already_sold';

/**
 * Whether one more sale to `offer` is allowed (affiliate-api.md, "Offer types"),
 * given the group's live sales. In order:
 * - the offer already has a live sale of this lead: a repost (`Duplicate - Offer`);
 * - a `true_exclusive` sale ended every other sale;
 * - `max_accepted_submissions` (3) sales reached;
 * - the school bought it `exclusive`: its other offers cannot;
 * - a `true_exclusive` or `exclusive` sale needs the lead unsold (to anyone,
 *   resp. to that school): exclusivity cannot be sold after the fact. This is
 *   what makes concurrent `true_exclusive` and shared submits end with exactly
 *   one sale.
 * Reserved sales count: a slot is taken from the reservation on.
 */
export function saleRefusal(sales: readonly LiveSale[], offer: LiveSale, max = MAX_ACCEPTED_SUBMISSIONS): SaleRefusal | null {
  return saleCheck(sales, offer, max)?.refusal ?? null;
}

/** A sale refusal with the facts it was decided on: the live sales counted, and the sale that closed it (none for the sale limit). */
export interface SaleRefusalFacts {
  refusal: SaleRefusal;
  liveSales: number;
  by: LiveSale | null;
}

/** saleRefusal, with its facts (what `ops lead explain` shows); the one implementation of the rule. */
export function saleCheck(sales: readonly LiveSale[], offer: LiveSale, max = MAX_ACCEPTED_SUBMISSIONS): SaleRefusalFacts | null {
  const refuse = (refusal: SaleRefusal, by: LiveSale | undefined | null): SaleRefusalFacts => ({
    refusal,
    liveSales: sales.length,
    by: by ?? null,
  });
  const repost = sales.find((s) => s.offerId === offer.offerId);
  if (repost) return refuse('already_sold_to_offer', repost);
  const endsOthers = sales.find((s) => s.offerType === 'true_exclusive');
  if (endsOthers) return refuse('sold_true_exclusive', endsOthers);
  if (sales.length >= max) return refuse('sale_limit_reached', null);
  const schoolExclusive = sales.find((s) => s.offerType === 'exclusive' && s.schoolId === offer.schoolId);
  if (schoolExclusive) return refuse('school_sold_exclusive', schoolExclusive);
  if (offer.offerType === 'true_exclusive' && sales.length > 0) return refuse('already_sold', sales[0]);
  const sameSchool = offer.offerType === 'exclusive' ? sales.find((s) => s.schoolId === offer.schoolId) : undefined;
  if (sameSchool) return refuse('already_sold', sameSchool);
  return null;
}

/** The contract's answer for a sale refusal: a repost is `DUPLICATE` (`Duplicate - Offer`), the rest `NOT_ELIGIBLE` with a reason saying which. */
export function saleRefusalDecision(refusal: SaleRefusal): Decision {
  switch (refusal) {
    case 'already_sold_to_offer':
      return SUBMIT.duplicateOffer;
    case 'sold_true_exclusive':
      return SUBMIT.soldExclusively;
    case 'sale_limit_reached':
      return SUBMIT.soldMaxTimes;
    case 'school_sold_exclusive':
      return SUBMIT.schoolBoughtExclusive;
    case 'already_sold':
      return SUBMIT.exclusiveAfterSale;
  }
}

/** "true_exclusive: Ends the lead's other sales": its acceptance is what the search's `true_exclusive_accepted` says. */
export const endsOtherSales = (offerType: OfferType): boolean => offerType === 'true_exclusive';

/** `offer.is_exclusive` of a result entry: true for `exclusive` and `true_exclusive` (affiliate-api.md, "Result entry"). */
export const isExclusive = (offerType: OfferType): boolean => offerType !== 'shared';
