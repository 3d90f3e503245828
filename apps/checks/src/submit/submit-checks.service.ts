import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SubmitCheckRefusal, SubmitChecksAnswerV1, SubmitChecksRequestedV1 } from '@lr/contracts';
import { checkAnswers, checkConsent, checkEligibility, Lead, leadDedupeKeys, saleRefusal, saleRefusalAnswer } from '@lr/domain';
import { counter } from '@lr/observability';
import { loadLiveSales, offersAlreadySoldToPerson, offersWithFullCaps } from '@lr/persistence';
import { CampaignCatalog } from '@lr/platform';

const refusals = counter('checks_submit_refusals_total', 'Submits refused by the submit-time checks, by code', ['code']);

/**
 * The submit-time checks, in full (issue: submit and delivery, item 3), in this
 * order, the first failure answering:
 * 1. the offer is still on the campaign and active, and the result not past
 *    `expires_at` (`OFFER_UNAVAILABLE`);
 * 2. program and answers against what the result showed, then consent
 *    (`invalid`: `REQUIRED_FIELD_MISSING`, `INVALID_FIELD`, `CONSENT_REQUIRED`);
 * 3. offer and program eligibility (`NOT_ELIGIBLE`);
 * 4. the lead group's sales rules (`DUPLICATE` for a repost, else `NOT_ELIGIBLE`);
 * 5. the person already sold to the offer within its window (live only, `DUPLICATE`);
 * 6. a cap already full (`CAP_REACHED`).
 * Read-only: 4 to 6 are checked again under locks when delivery reserves the
 * sale, so a race between two submits is settled there, not here.
 */
@Injectable()
export class SubmitChecksService {
  constructor(
    private readonly ds: DataSource,
    private readonly catalog: CampaignCatalog,
  ) {}

  async check(req: SubmitChecksRequestedV1, now: Date = new Date()): Promise<SubmitChecksAnswerV1> {
    const answer = (refusal: SubmitCheckRefusal | null, programId: string | null = req.programId, answers: Record<string, string> = {}) => {
      if (refusal) refusals.inc({ code: refusal.code });
      return { leadId: req.leadId, refusal, programId, answers };
    };
    const offer = (await this.catalog.offersOf(req.campaignId)).find((o) => o.offerId === req.offerId);
    if (!offer || offer.status !== 'active' || (req.expiresAt !== null && Date.parse(req.expiresAt) <= now.getTime())) {
      return answer({ status: 'rejected', code: 'OFFER_UNAVAILABLE', reason: 'Offer unavailable' });
    }

    const shown = req.shown ?? { programs: offer.programs, formFields: offer.formFields };
    const answers = checkAnswers(shown, req.programId, req.answers);
    if (!answers.ok) return answer(answers.refusal);
    const consent = checkConsent(req.tcpaConsent);
    if (consent) return answer(consent);
    const done = (refusal: SubmitCheckRefusal | null) => answer(refusal, answers.programId, answers.answers);

    const lead = req.lead as Lead;
    const program = offer.programs.find((p) => p.value === answers.programId);
    const offerRules = checkEligibility(offer.eligibility, lead, now);
    const programRules = program ? checkEligibility(program.eligibility, lead, now) : { eligible: true as const };
    if (!offerRules.eligible || !programRules.eligible) return done({ status: 'rejected', code: 'NOT_ELIGIBLE', reason: 'Not eligible' });

    const [sales, sold, fullCaps] = await Promise.all([
      req.leadGroupId && !req.isTest ? loadLiveSales(this.ds, req.leadGroupId) : Promise.resolve([]),
      req.isTest
        ? Promise.resolve(new Set<string>())
        : offersAlreadySoldToPerson(this.ds, leadDedupeKeys(lead), [{ offerId: offer.offerId, windowDays: offer.duplicateWindowDays }]),
      offersWithFullCaps(this.ds, req.campaignId, [offer.offerId]),
    ]);
    const sale = saleRefusal(sales, { offerId: offer.offerId, schoolId: offer.schoolId, offerType: offer.offerType });
    if (sale) return done({ status: 'rejected', ...saleRefusalAnswer(sale) });
    if (sold.has(offer.offerId)) return done({ status: 'rejected', code: 'DUPLICATE', reason: 'Duplicate - Offer' });
    if (fullCaps.has(offer.offerId)) return done({ status: 'rejected', code: 'CAP_REACHED', reason: 'Cap reached' });
    return done(null);
  }
}
