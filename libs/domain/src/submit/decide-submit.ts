import type { CampaignOffer } from '../catalog/campaign-offer';
import { checkAnswers, ShownOffer } from '../answers/answers';
import { checkConsent } from '../consent/consent';
import { Decision, SUBMIT } from '../decisions/decision-catalog';
import type { Lead } from '../lead-input';
import { judgeOffers, SaleFacts, submitDecisionOf } from '../qualify/qualify';
import type { TestMode } from '../test-mode/test-mode';

/** What a submit asks for, as the gateway validated it. */
export interface SubmitChoice {
  programId: string | null;
  /** Every top-level key that is not an envelope field: the answers to the result's questions. */
  answers: Record<string, unknown>;
  tcpaConsent: boolean | null;
}

/** The result the consumer picked, as shown (null on a direct post: the catalog's programs and questions then). */
export interface PickedResult {
  shown: ShownOffer;
  expiresAt: Date | null;
}

export type PreChecked =
  | {
      ok: true;
      programId: string | null;
      answers: Record<string, string>;
      /**
       * The rest of the submit's checks, on what PostgreSQL says under the
       * reservation's locks: the lead's sales (a repost is `Duplicate - Offer`),
       * the person already sold to the offer within its window (live leads
       * only), the offer's caps. Null: the sale may be made (the reservation
       * then takes the cap slots atomically; a slot taken meanwhile is
       * CAP_REACHED there).
       */
      saleDecision: (facts: SaleFacts) => Decision | null;
    }
  | { ok: false; decision: Decision };

/**
 * The submit-time checks that need no lock (affiliate-api.md: "Checks run
 * again in full (duplicate, caps, eligibility, required fields, consent)";
 * docs/submit.md), in this order, the first failure answering:
 *   1. the offer is still active on the campaign and the result not past
 *      `expires_at` ("After expires_at: refused with OFFER_UNAVAILABLE");
 *   2. the program and the answers against what the result showed ("Question rules");
 *   3. consent (never taken from the search);
 *   4. eligibility of the offer and the chosen program (NOT_ELIGIBLE).
 * The lead's sales, the person and the caps follow under the reservation's
 * locks (the answer's saleDecision: the same judgeOffers, its facts read then).
 */
export function preCheckSubmit(
  offer: CampaignOffer | undefined,
  picked: PickedResult | null,
  choice: SubmitChoice,
  lead: Lead,
  mode: TestMode,
  now: Date,
): PreChecked {
  if (!offer || offer.status !== 'active' || (picked?.expiresAt && picked.expiresAt.getTime() <= now.getTime())) {
    return { ok: false, decision: SUBMIT.offerUnavailable };
  }
  const shown = picked?.shown ?? { programs: offer.programs, formFields: offer.formFields };
  const answers = checkAnswers(shown, choice.programId, choice.answers);
  if (!answers.ok) return { ok: false, decision: answers.refusal };
  const consent = checkConsent(choice.tcpaConsent);
  if (consent) return { ok: false, decision: consent };
  // A partner result's programs are the partner's: only the offer's own rules apply to them (judgeOffers).
  const judged = judgeOffers([offer], lead, { kind: 'chosen', programId: answers.programId }, now, mode);
  const eligible = judged.eligibility[0];
  if (!eligible.qualifies) return { ok: false, decision: submitDecisionOf(eligible) };
  return {
    ok: true,
    programId: answers.programId,
    answers: answers.answers,
    saleDecision: (facts) => {
      const verdict = judged.decide(facts)[0];
      return verdict.qualifies ? null : submitDecisionOf(verdict);
    },
  };
}
