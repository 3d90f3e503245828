import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MAX_ACCEPTED_SUBMISSIONS, OfferCheckOutcome, OffersCheckAnswerV1, OffersCheckRequestedV1 } from '@lr/contracts';
import { Lead, leadDedupeKeys, qualifyOffer } from '@lr/domain';
import { counter } from '@lr/observability';
import { CampaignOfferRecord, searchCheckFacts } from '@lr/persistence';
import { CampaignCatalog } from '@lr/platform';

const refusals = counter('checks_search_refusals_total', 'Offers left out of a search, by reason', ['refusal']);

/**
 * The search-time checks (issue: search and polling, item 3): which of a
 * campaign's offers the search's lead may be shown, and with which programs.
 * In order, cheapest first: on the campaign and active; offer eligibility, then
 * program eligibility (own offers; a partner supplies its programs); then, for
 * what is left, in one statement: caps already full, the person already sold to the
 * offer within its duplicate window (live searches only: test mode skips the
 * person-level duplicate check), and the search's own sale state. Read-only,
 * so a redelivered request has no effect beyond its answer.
 */
@Injectable()
export class SearchChecksService {
  constructor(
    private readonly ds: DataSource,
    private readonly catalog: CampaignCatalog,
  ) {}

  async check(req: OffersCheckRequestedV1, today: Date = new Date()): Promise<OffersCheckAnswerV1> {
    const catalog = new Map((await this.catalog.offersOf(req.campaignId)).map((o) => [o.offerId, o]));
    const lead = req.lead as Lead;
    const outcomes = new Map<string, OfferCheckOutcome>();
    const candidates: Array<{ offer: CampaignOfferRecord; programs: string[] | null }> = [];

    for (const offerId of req.offerIds) {
      const offer = catalog.get(offerId);
      if (!offer) {
        outcomes.set(offerId, refuse(offerId, 'not_on_campaign'));
        continue;
      }
      if (offer.status !== 'active') {
        outcomes.set(offerId, refuse(offerId, 'offer_inactive'));
        continue;
      }
      const own = offer.source === 'own';
      const verdict = qualifyOffer(offer.eligibility, own ? offer.programs : [], lead, today);
      if (!verdict.ok) {
        outcomes.set(offerId, refuse(offerId, verdict.refusal, verdict.detail));
        continue;
      }
      candidates.push({ offer, programs: own ? verdict.programs : null });
    }

    // One round trip for all three lookups (see searchCheckFacts).
    const { fullCaps, alreadySold, sale } = await searchCheckFacts(this.ds, {
      campaignId: req.campaignId,
      offers: candidates.map((c) => ({ offerId: c.offer.offerId, windowDays: c.offer.duplicateWindowDays })),
      keys: req.isTest ? [] : leadDedupeKeys(lead),
      searchId: req.searchStored ? req.searchId : undefined,
    });
    const saleClosed = sale.trueExclusiveAccepted || sale.acceptedCount >= MAX_ACCEPTED_SUBMISSIONS;

    for (const { offer, programs } of candidates) {
      const id = offer.offerId;
      // A true_exclusive sale needs an unsold lead (libs/domain saleRefusal), so it is not offered once sold.
      if (saleClosed || (offer.offerType === 'true_exclusive' && sale.acceptedCount > 0)) outcomes.set(id, refuse(id, 'sale_closed'));
      else if (sale.exclusiveSchoolIds.has(offer.schoolId)) outcomes.set(id, refuse(id, 'school_sold_exclusive'));
      else if (fullCaps.has(id)) outcomes.set(id, refuse(id, 'cap_reached'));
      else if (alreadySold.has(id)) outcomes.set(id, refuse(id, 'duplicate'));
      else outcomes.set(id, { offerId: id, qualifies: true, programs });
    }
    return { searchId: req.searchId, outcomes: req.offerIds.map((id) => outcomes.get(id)!) };
  }
}

function refuse(offerId: string, refusal: NonNullable<OfferCheckOutcome['refusal']>, detail?: string): OfferCheckOutcome {
  refusals.inc({ refusal });
  return { offerId, qualifies: false, refusal, ...(detail ? { detail } : {}), programs: null };
}
