import { randomUUID } from 'node:crypto';
import type { PartnerOfferResult, ResultEntry } from '@lr/contracts';
import { RankCandidate, resultPayouts } from '@lr/domain';
import type { CampaignOfferRecord } from '@lr/persistence';

/** A result about to be shown: its rank keys, the entry exactly as the affiliate sees it, and what the row stores besides. */
export interface ResultCandidate extends RankCandidate {
  resultId: string;
  entry: ResultEntry;
  expiresAt: Date;
  /** Partner results: what a submit needs to reach the partner (never shown). */
  partnerData: { partnerId: string; partnerResultId: string; externalId: string } | null;
}

/**
 * An own offer's result: the programs that passed the checks, the catalog's
 * questions, the caller's payouts (never the offer's price) and an expiry of
 * `result_ttl_seconds` from now.
 */
export function ownResult(offer: CampaignOfferRecord, campaignId: string, programValues: string[], now: Date): ResultCandidate {
  const allowed = new Set(programValues);
  const programs = offer.programs.filter((p) => allowed.has(p.value)).map((p) => ({ value: p.value, label: p.label }));
  return candidate(offer, campaignId, programs, offer.formFields, offer.tcpaText, new Date(now.getTime() + offer.resultTtlSeconds * 1000), null);
}

/**
 * A partner offer's result: programs, questions and consent text come from the
 * partner; the school shown is the catalog's (the operator's name for it; the
 * school-once and exclusivity rules go by it); it expires at the earlier of the
 * offer's `result_ttl_seconds` and the partner's own expiry.
 */
export function partnerResult(offer: CampaignOfferRecord, campaignId: string, r: PartnerOfferResult, now: Date): ResultCandidate {
  const ttl = Math.min(offer.resultTtlSeconds, r.expiresInSeconds ?? offer.resultTtlSeconds);
  return candidate(
    offer,
    campaignId,
    r.programs.map((p) => ({ value: p.value, label: p.label })),
    r.formFields,
    r.tcpaText ?? offer.tcpaText,
    new Date(now.getTime() + ttl * 1000),
    { partnerId: offer.partner!.id, partnerResultId: r.partnerResultId, externalId: r.externalId },
  );
}

function candidate(
  offer: CampaignOfferRecord,
  campaignId: string,
  programs: Array<{ value: string; label: string }>,
  formFields: ResultEntry['form_fields'],
  tcpaText: string | null,
  expiresAt: Date,
  partnerData: ResultCandidate['partnerData'],
): ResultCandidate {
  const resultId = randomUUID();
  const payouts = resultPayouts({ payout: offer.payout, programPayouts: offer.programPayouts }, programs);
  const entry: ResultEntry = {
    svc_result_id: resultId,
    campaign_id: campaignId,
    offer: {
      id: offer.offerId,
      name: offer.name,
      offer_type: offer.offerType,
      is_exclusive: offer.offerType !== 'shared',
      tcpa_text: tcpaText,
    },
    school: { name: offer.schoolName, logo_url: offer.schoolLogoUrl },
    programs: payouts.programs,
    ...(payouts.payout !== undefined ? { payout: payouts.payout } : {}),
    form_fields: formFields,
    expires_at: expiresAt.toISOString(),
  };
  return {
    resultId,
    entry,
    expiresAt,
    partnerData,
    offerId: offer.offerId,
    schoolId: offer.schoolId,
    priority: offer.priority,
    ...(payouts.payout !== undefined ? { payout: payouts.payout } : {}),
    source: offer.source,
    name: offer.name,
  };
}
