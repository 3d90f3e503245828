import { returnVerdict } from '@lr/domain';
import { counter } from '@lr/observability';
import { LeadReturns, ReturnOutcome, ReturnRequest } from '@lr/persistence';

/** Labels are ids and codes only: the offer, the reason code, where the return came from. Never the note, never contact data. */
const returnsBooked = counter(
  'lead_returns_total',
  'Leads returned by the school that bought them, by offer, reason code and source (api or import)',
  ['offer_id', 'reason', 'source'],
);

/**
 * One return of a lead by its school (docs/returns.md), for the buyer API and
 * for `ops returns import` alike: the returns ledger reads the facts, the
 * domain's rule (returnVerdict) decides, the ledger appends the return with
 * its reversal entries and gives the cap slots back when the policy says so.
 * A booked return is counted by offer and reason.
 */
export async function returnLead(returns: LeadReturns, request: ReturnRequest): Promise<ReturnOutcome> {
  const outcome = await returns.returnLead(request, (facts) => returnVerdict(facts, request.reason));
  if (outcome.kind === 'returned') returnsBooked.inc({ offer_id: outcome.offerId, reason: outcome.reason, source: request.source });
  return outcome;
}
