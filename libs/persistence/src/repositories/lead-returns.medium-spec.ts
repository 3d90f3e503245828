import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { capsAt, REFUSAL, returnVerdict } from '@lr/domain';
import { mediumDataSource, returnsWorld, soldLead } from '../../../../test/support/medium-world';
import { LeadRepository } from './lead.repository';
import { LeadReturns, ReturnRequest } from './lead-returns.repository';
import { SaleLedger } from './sale-ledger.repository';

/**
 * The returns ledger on the real PostgreSQL, on leads sold by the real
 * producers (checks' reservation, delivery's settlement): a return appends
 * its reversal entries and leaves the sale and the lead as booked, gives the
 * cap slot back when the policy says so (and the cap's usage, as the next
 * sale reads it, shows it), and under concurrency has one effect.
 */
describe('LeadReturns (medium)', () => {
  let ds: DataSource;
  let returns: LeadReturns;
  const policy = (refundsCap: boolean) => ({ window_days: 7, reasons: ['wrong_number', 'not_the_person'], refunds_cap: refundsCap });
  let world: Awaited<ReturnType<typeof returnsWorld>>;
  const [REFUND, KEEP, NONE] = [0, 1, 2];

  beforeAll(async () => {
    ds = await mediumDataSource(12);
    returns = new LeadReturns(ds);
    world = await returnsWorld(ds, [
      { caps: [{ period: 'total', limit: 100 }], price: 45, payout: 22.5, returns: policy(true) },
      { caps: [{ period: 'total', limit: 100 }], price: 30, payout: 10, returns: policy(false) },
      { price: 40 },
    ]);
  });
  afterAll(() => ds?.destroy());

  const request = (leadId: string, offer: number, over: Partial<ReturnRequest> = {}): ReturnRequest => ({
    leadId,
    schoolId: world.schoolIds[offer],
    reason: 'wrong_number',
    note: 'called, not the person',
    source: 'api',
    apiKeyId: null,
    ...over,
  });
  const returnOf = (q: ReturnRequest) => returns.returnLead(q, (facts) => returnVerdict(facts, q.reason));
  /** The offer's total cap usage now, as the next sale's facts read it. */
  const capUsed = async (offer: number) => {
    const caps = capsAt(
      [{ offerId: world.offerIds[offer], campaignId: null, period: 'total', limit: 100, timezone: 'America/New_York' }],
      new Date(),
    );
    const facts = await new SaleLedger(ds).saleFacts({
      groupId: null,
      slots: caps.map((c) => c.slot),
      keys: [],
      offerIds: [],
      optOutKeys: [],
    });
    return facts.capUsage.get(`offer:${world.offerIds[offer]}|total|${new Date(0).toISOString()}`) ?? 0;
  };
  const rowsOf = (leadId: string) =>
    ds.query(`SELECT reason, note, source, payout_reversal, price_reversal, cap_slots FROM lead_returns WHERE lead_id = $1`, [leadId]);

  it('appends the return with its reversal entries; the sale and the lead keep what they booked; the cap slot is given back', async () => {
    const leadId = await soldLead(world, world.offerIds[REFUND]);
    const before = await capUsed(REFUND);
    const [saleBefore] = await ds.query(`SELECT status, payout, price, updated_at FROM sales WHERE lead_id = $1`, [leadId]);
    const outcome = await returnOf(request(leadId, REFUND));
    expect(outcome).toMatchObject({ kind: 'returned', reason: 'wrong_number', offerId: world.offerIds[REFUND], capSlotsFreed: 1 });
    expect(await rowsOf(leadId)).toEqual([
      {
        reason: 'wrong_number',
        note: 'called, not the person',
        source: 'api',
        payout_reversal: '-22.50',
        price_reversal: '-45.00',
        cap_slots: [expect.objectContaining({ scope: `offer:${world.offerIds[REFUND]}`, period: 'total' })],
      },
    ]);
    expect(await ds.query(`SELECT status, payout, price, updated_at FROM sales WHERE lead_id = $1`, [leadId])).toEqual([saleBefore]);
    expect(await capUsed(REFUND)).toBe(before - 1);
    const status = await new LeadRepository(ds).findWithReturn(leadId);
    expect(status).toMatchObject({
      lead: { status: 'accepted', payout: 2250 },
      returned: { reason: 'wrong_number', at: (outcome as { at: Date }).at },
    });
  });

  it('keeps the cap slot when the policy does not refund the cap', async () => {
    const leadId = await soldLead(world, world.offerIds[KEEP]);
    const before = await capUsed(KEEP);
    expect(await returnOf(request(leadId, KEEP, { reason: 'not_the_person', note: null, source: 'import' }))).toMatchObject({
      kind: 'returned',
      capSlotsFreed: 0,
    });
    expect(await rowsOf(leadId)).toEqual([
      { reason: 'not_the_person', note: null, source: 'import', payout_reversal: '-10.00', price_reversal: '-30.00', cap_slots: [] },
    ]);
    expect(await capUsed(KEEP)).toBe(before);
  });

  it('ten concurrent returns of one lead, on ten connections: one effect (one row, one slot back); the others read ALREADY_RETURNED', async () => {
    const leadId = await soldLead(world, world.offerIds[REFUND]);
    const before = await capUsed(REFUND);
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => returnOf(request(leadId, REFUND, { reason: i % 2 ? 'wrong_number' : 'not_the_person' }))),
    );
    expect(outcomes.filter((o) => o.kind === 'returned')).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'refused').map((o) => (o as { decision: unknown }).decision)).toEqual(
      Array(9).fill(REFUSAL.alreadyReturned),
    );
    expect(await rowsOf(leadId)).toHaveLength(1);
    expect(await capUsed(REFUND)).toBe(before - 1);
  });

  it("refuses and writes nothing: another school, a reason not the offer's, an offer without a policy, past the window, an unknown lead", async () => {
    const leadId = await soldLead(world, world.offerIds[REFUND]);
    const noPolicy = await soldLead(world, world.offerIds[NONE]);
    const expired = await soldLead(world, world.offerIds[REFUND]);
    await ds.query(`UPDATE leads SET decided_at = now() - interval '7 days 1 second' WHERE id = $1`, [expired]);
    const refused = async (q: ReturnRequest) => ((await returnOf(q)) as { decision: unknown }).decision;
    expect(await refused(request(leadId, KEEP, { schoolId: world.schoolIds[KEEP] }))).toBe(REFUSAL.returnLeadNotFound);
    expect(await refused(request(leadId, REFUND, { reason: 'changed_mind' }))).toEqual(
      REFUSAL.returnReasonUnknown('wrong_number, not_the_person'),
    );
    expect(await refused(request(noPolicy, NONE))).toBe(REFUSAL.noReturnPolicy);
    expect(await refused(request(expired, REFUND))).toBe(REFUSAL.returnWindowClosed);
    expect(await refused(request(randomUUID(), REFUND))).toBe(REFUSAL.returnLeadNotFound);
    expect(await ds.query(`SELECT lead_id FROM lead_returns WHERE lead_id = ANY($1::uuid[])`, [[leadId, noPolicy, expired]])).toEqual([]);
    // Still returnable by its own school.
    expect(await returnOf(request(leadId, REFUND))).toMatchObject({ kind: 'returned' });
  });
});
