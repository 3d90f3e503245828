import { randomUUID } from 'node:crypto';
import type { PartnerOfferResult, ResultEntry } from '../vocabulary/offers';
import type { CampaignOffer } from '../catalog/campaign-offer';
import { amount, type Cents } from '../money/money';
import { resultPayouts } from '../payouts/payouts';
import type { RankCandidate } from '../ranking/ranking';
import { isExclusive } from '../sales/sale-rules';

/** A result about to be shown: its rank keys, the entry exactly as the affiliate sees it, and what its row keeps besides. */
export interface ResultCandidate extends RankCandidate {
  resultId: string;
  entry: ResultEntry;
  expiresAt: Date;
  /** Partner results: what a submit needs to reach the partner (never shown). */
  partnerData: { partnerId: string; partnerResultId: string; externalId: string } | null;
  /**
   * What the entry shows besides its id and expiry is a function of these
   * alone, or null when it is not: an own offer's result is made from the
   * campaign's offer as the catalog gave it (an object never changed in place:
   * a catalog change is a new one) and the programs that qualified, so results
   * of the same shape show the same thing. A partner's result shows what the
   * partner answered (null).
   */
  shape: ResultShape | null;
}

/** See ResultCandidate.shape. */
export interface ResultShape {
  offer: CampaignOffer;
  /** The qualifying program values, joined by a newline. */
  programs: string;
}

/**
 * An own offer's result (affiliate-api.md, "Result entry"): the programs that
 * qualified, the catalog's questions and consent statement, the caller's
 * payouts (never the offer's price) and an expiry of `result_ttl_seconds`
 * from now.
 */
export function ownResult(offer: CampaignOffer, programValues: readonly string[], now: Date): ResultCandidate {
  const allowed = new Set(programValues);
  const programs = offer.programs.filter((p) => allowed.has(p.value)).map((p) => ({ value: p.value, label: p.label }));
  const shape = { offer, programs: programValues.join('\n') };
  return candidate(offer, programs, offer.formFields, offer.tcpaText, new Date(now.getTime() + offer.resultTtlSeconds * 1000), null, shape);
}

/**
 * A partner offer's result: programs, questions and consent text come from the
 * partner; the school shown is the catalog's (the operator's name for it; the
 * school-once and exclusivity rules go by it); it expires at the earlier of
 * the offer's `result_ttl_seconds` and the partner's own expiry.
 */
export function partnerResult(offer: CampaignOffer, r: PartnerOfferResult, now: Date): ResultCandidate {
  const ttl = Math.min(offer.resultTtlSeconds, r.expiresInSeconds ?? offer.resultTtlSeconds);
  return candidate(
    offer,
    r.programs.map((p) => ({ value: p.value, label: p.label })),
    r.formFields,
    r.tcpaText ?? offer.tcpaText,
    new Date(now.getTime() + ttl * 1000),
    { partnerId: offer.partner!.id, partnerResultId: r.partnerResultId, externalId: r.externalId },
    null,
  );
}

/**
 * What ranking needs of an own offer's result with these programs, without
 * the entry (a replay that only ranks): the same keys and payout `ownResult` gives.
 */
export function ownRankKeys(offer: CampaignOffer, programValues: readonly string[]): RankCandidate {
  const allowed = new Set(programValues);
  return rankKeys(
    offer,
    resultPayouts(
      offer.payouts,
      offer.programs.filter((p) => allowed.has(p.value)),
    ).payout,
  );
}

function rankKeys(offer: CampaignOffer, best: Cents | undefined): RankCandidate {
  return {
    offerId: offer.offerId,
    schoolId: offer.schoolId,
    priority: offer.priority,
    ...(best !== undefined ? { payout: best } : {}),
    source: offer.source,
    name: offer.name,
  };
}

function candidate(
  offer: CampaignOffer,
  programs: Array<{ value: string; label: string }>,
  formFields: ResultEntry['form_fields'],
  tcpaText: string | null,
  expiresAt: Date,
  partnerData: ResultCandidate['partnerData'],
  shape: ResultShape | null,
): ResultCandidate {
  const resultId = randomUUID();
  const payouts = resultPayouts(offer.payouts, programs);
  const best: Cents | undefined = payouts.payout;
  const entry: ResultEntry = {
    svc_result_id: resultId,
    campaign_id: offer.campaignId,
    offer: {
      id: offer.offerId,
      name: offer.name,
      offer_type: offer.offerType,
      is_exclusive: isExclusive(offer.offerType),
      tcpa_text: tcpaText,
    },
    school: { name: offer.schoolName, logo_url: offer.schoolLogoUrl },
    programs: payouts.programs,
    ...(best !== undefined ? { payout: amount(best) } : {}),
    form_fields: formFields,
    expires_at: expiresAt.toISOString(),
  };
  return { resultId, entry, expiresAt, partnerData, shape, ...rankKeys(offer, best) };
}
