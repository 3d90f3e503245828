import type { OfferRefusal } from '@lr/contracts';
import { CapAt, capsAt, CapUsage, capUsed, fullCap } from '../caps/caps';
import type { CampaignOffer } from '../catalog/campaign-offer';
import { Decision, SUBMIT } from '../decisions/decision-catalog';
import { LastSales, soldWithinWindow } from '../duplicates/duplicates';
import type { Lead } from '../lead-input';
import { LiveSale, saleCheck, SaleRefusal, SaleRefusalFacts, saleRefusalDecision } from '../sales/sale-rules';
import type { TestMode } from '../test-mode/test-mode';
import { checkEligibility, EligibilityFailure, ProgramCheck, qualifyOffer } from './eligibility';

/**
 * Whether a lead qualifies for an offer, and with which programs: the one
 * decision behind what a search shows (own offers and partner results alike)
 * and what a submit may sell (affiliate-api.md: the search "runs duplicate,
 * cap, eligibility and requirement checks"; at submit "checks run again in
 * full (duplicate, caps, eligibility, required fields, consent) before the
 * buyer receives the lead"). In order, the first that fails decides:
 *   1. the offer is active on the campaign;
 *   2. eligibility: the offer's rules, then its programs' (qualify/eligibility.ts);
 *   3. the person has not opted out (opt-outs/: their email or phone is not suppressed, in every mode);
 *   4. the lead's sale state: offer types and max_accepted_submissions (sales/sale-rules.ts);
 *   5. the person already sold to the offer within its window (duplicates/, live leads only: test-mode/);
 *   6. a cap of the offer already full in its period (caps/).
 */
export type OfferVerdict = Qualified | Refused;
export interface Qualified {
  offerId: string;
  qualifies: true;
  /** The qualifying program values (own offers, catalog order), or null for a partner result (the partner supplies programs). */
  programs: string[] | null;
  /** Each catalog program's check, when every catalog program was judged (a search's own offer). */
  programChecks?: ProgramCheck[];
}
export interface Refused {
  offerId: string;
  qualifies: false;
  refusal: OfferRefusal;
  /** For operators: the rule that failed (e.g. `states`, `programs.bsn.education_levels`, `sold_true_exclusive`). */
  detail?: string;
  /** The facts the rule decided on (`ops lead explain`; a search stores only `refusal` and `detail`). */
  facts?: RefusalFacts;
}

/** What a refusal was decided on, by the rule that decided it. */
export type RefusalFacts =
  | { kind: 'offer_status'; status: CampaignOffer['status'] }
  | { kind: 'eligibility'; failure: EligibilityFailure }
  | { kind: 'program'; program: string; failure: EligibilityFailure }
  | { kind: 'programs'; programs: ProgramCheck[] }
  | ({ kind: 'sale' } & SaleRefusalFacts)
  | { kind: 'duplicate'; soldAt: Date; windowDays: number }
  | { kind: 'cap'; cap: CapAt; used: number }
  | { kind: 'opted_out' };

/** What PostgreSQL says now about a lead group, the person and the offers' caps (read by the repositories). */
export interface SaleFacts {
  /** The lead group's live (reserved or accepted) sales: the search's, or a direct post's and its retries'. */
  liveSales: readonly LiveSale[];
  /** When the person was last sold to each offer (empty when the person check does not run). */
  lastSales: LastSales;
  /** Sales counted in each cap slot now. */
  capUsage: CapUsage;
  /** The person opted out (their email or phone is suppressed now: opt-outs/). */
  suppressed: boolean;
}

/** Which programs are judged: every catalog program (a search's own offer), none (a partner supplies them), or the one chosen on a submit. */
export type ProgramsJudged = { kind: 'catalog' } | { kind: 'partner' } | { kind: 'chosen'; programId: string | null };

const refused = (offerId: string, refusal: OfferRefusal, detail?: string, facts?: RefusalFacts): Refused => ({
  offerId,
  qualifies: false,
  refusal,
  ...(detail ? { detail } : {}),
  ...(facts ? { facts } : {}),
});

/** The offer is not (or no longer) on the campaign. */
export const notOnCampaign = (offerId: string): Refused => refused(offerId, 'not_on_campaign');

/** Steps 1 and 2: the offer active, the lead eligible for it and for the programs judged. */
export function eligibilityVerdict(offer: CampaignOffer, lead: Lead, now: Date, programs: ProgramsJudged): OfferVerdict {
  if (offer.status !== 'active') return refused(offer.offerId, 'offer_inactive', undefined, { kind: 'offer_status', status: offer.status });
  if (programs.kind === 'catalog') {
    const verdict = qualifyOffer(offer.eligibility, offer.programs, lead, now);
    if (verdict.ok) return { offerId: offer.offerId, qualifies: true, programs: verdict.programs, programChecks: verdict.programChecks };
    return verdict.refusal === 'not_eligible'
      ? refused(offer.offerId, verdict.refusal, verdict.detail, { kind: 'eligibility', failure: verdict.failure })
      : refused(offer.offerId, verdict.refusal, verdict.detail, { kind: 'programs', programs: verdict.programChecks });
  }
  const rules = checkEligibility(offer.eligibility, lead, now);
  if (!rules.eligible) return refused(offer.offerId, 'not_eligible', rules.rule, { kind: 'eligibility', failure: rules });
  if (programs.kind === 'chosen' && programs.programId !== null) {
    const program = offer.programs.find((p) => p.value === programs.programId);
    const own = program ? checkEligibility(program.eligibility, lead, now) : ({ eligible: true } as const);
    if (!own.eligible)
      return refused(offer.offerId, 'no_eligible_program', `programs.${program!.value}.${own.rule}`, {
        kind: 'program',
        program: program!.value,
        failure: own,
      });
    return { offerId: offer.offerId, qualifies: true, programs: [programs.programId] };
  }
  return { offerId: offer.offerId, qualifies: true, programs: programs.kind === 'partner' ? null : [] };
}

/** The refusals saleVerdict gives (steps 3 to 6): decided on the sale facts of their moment, not on the lead and the catalog alone. */
export const SALE_REFUSALS: ReadonlySet<OfferRefusal> = new Set<OfferRefusal>([
  'opted_out',
  'sale_closed',
  'school_sold_exclusive',
  'duplicate',
  'cap_reached',
]);

/** Steps 3 to 6: whether one more sale of this lead to this offer is allowed now. Null when it is. */
export function saleVerdict(offer: CampaignOffer, facts: SaleFacts, mode: TestMode, now: Date): Refused | null {
  if (facts.suppressed) return refused(offer.offerId, 'opted_out', undefined, { kind: 'opted_out' });
  const sale = saleCheck(facts.liveSales, { offerId: offer.offerId, schoolId: offer.schoolId, offerType: offer.offerType });
  if (sale)
    return refused(offer.offerId, sale.refusal === 'school_sold_exclusive' ? 'school_sold_exclusive' : 'sale_closed', sale.refusal, {
      kind: 'sale',
      ...sale,
    });
  const soldAt = facts.lastSales.get(offer.offerId);
  if (mode.checksPerson && soldWithinWindow(soldAt, offer.duplicateWindowDays, now)) {
    return refused(offer.offerId, 'duplicate', undefined, { kind: 'duplicate', soldAt: soldAt!, windowDays: offer.duplicateWindowDays });
  }
  const cap = fullCap(capsAt(offer.caps, now), facts.capUsage);
  if (cap) return refused(offer.offerId, 'cap_reached', undefined, { kind: 'cap', cap, used: capUsed(cap, facts.capUsage) });
  return null;
}

/** The whole decision for one offer: eligibility, then the sale. */
export function qualify(
  offer: CampaignOffer,
  lead: Lead,
  facts: SaleFacts,
  mode: TestMode,
  now: Date,
  programs: ProgramsJudged,
): OfferVerdict {
  const eligible = eligibilityVerdict(offer, lead, now, programs);
  if (!eligible.qualifies) return eligible;
  return saleVerdict(offer, facts, mode, now) ?? eligible;
}

/** A refused verdict as the submit answers it (contract: Decision codes in a 200 answer). */
export function submitDecisionOf(verdict: Refused): Decision {
  switch (verdict.refusal) {
    case 'offer_inactive':
    case 'not_on_campaign':
      return SUBMIT.offerUnavailable;
    // An opted-out person is refused with the plain eligibility answer: it says nothing of who recorded the opt-out.
    case 'not_eligible':
    case 'no_eligible_program':
    case 'opted_out':
      return SUBMIT.notEligible;
    case 'duplicate':
      return SUBMIT.duplicateOffer;
    case 'cap_reached':
      return SUBMIT.capReached;
    case 'sale_closed':
    case 'school_sold_exclusive':
      return saleRefusalDecision(verdict.detail as SaleRefusal);
  }
}
