import { cents, SUBMIT } from '../../libs/domain/src';
import { SaleLedger } from '../../libs/persistence/src';
import { applyChanged, OfferOptions, reservedLead, submitWorld, SubmitWorld } from './medium-submit-world';

/** Accepted leads in bulk, as the statement bench seeds them (one definition for both). */
export { seedAcceptedLeads } from '../../bench/support/accepted-leads';

/** An offer of a returns world: the submit world's options, and its return policy as the catalog file gives it (absent: none). */
export type ReturnsOffer = OfferOptions & { returns?: { window_days: number; reasons: string[]; refunds_cap?: boolean } };

/** The medium tier's world for returns: the submit world (one school per offer) with each offer's return policy applied. */
export async function returnsWorld(ds: SubmitWorld['ds'], offers: ReturnsOffer[]): Promise<SubmitWorld & { schoolIds: string[] }> {
  const world = await submitWorld(ds, offers);
  for (const [i, o] of offers.entries()) if (o.returns) await applyChanged(world, world.offerIds[i], { returns: o.returns });
  const schoolIds = world.catalog.offers.map((o) => o.school_id as string);
  return { ...world, schoolIds };
}

/**
 * A lead sold by its real producers: a fresh person's search of the offer,
 * reserved by checks' DecideSubmit (its cap slots taken), then settled
 * accepted as delivery books a buyer's acceptance (the payout of the sale).
 */
export async function soldLead(world: SubmitWorld, offerId: string): Promise<string> {
  const { deliver } = await reservedLead(world, offerId);
  const payout = deliver.payout === null ? null : cents(deliver.payout);
  await new SaleLedger(world.ds).settle({
    leadId: deliver.leadId,
    outcome: 'accepted',
    decision: SUBMIT.accepted,
    attempt: null,
    payout,
    endsOtherSales: false,
  });
  return deliver.leadId;
}
