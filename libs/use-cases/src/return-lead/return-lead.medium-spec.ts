import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { REFUSAL } from '@lr/domain';
import { metricsRegistry } from '@lr/observability';
import { LeadReturns, ReturnRequest } from '@lr/persistence';
import { mediumDataSource, returnsWorld, soldLead } from '../../../../test/support/medium-world';
import { returnLead } from './return-lead.usecase';

/**
 * One return, as the buyer API and `ops returns import` both run it, on the
 * real PostgreSQL: the domain's rule decides on the ledger's facts, a booked
 * return is counted by offer, reason and source, a refused one is not.
 */
describe('returnLead (medium)', () => {
  let ds: DataSource;
  let returns: LeadReturns;
  let world: Awaited<ReturnType<typeof returnsWorld>>;

  beforeAll(async () => {
    ds = await mediumDataSource(4);
    returns = new LeadReturns(ds);
    world = await returnsWorld(ds, [{ price: 30, payout: 10, returns: { window_days: 7, reasons: ['wrong_number'], refunds_cap: false } }]);
  });
  afterAll(() => ds?.destroy());

  const request = (leadId: string, over: Partial<ReturnRequest> = {}): ReturnRequest => ({
    leadId,
    schoolId: world.schoolIds[0],
    reason: 'wrong_number',
    note: null,
    source: 'import',
    apiKeyId: null,
    ...over,
  });
  /** lead_returns_total for the world's offer, reason wrong_number, source import. */
  const counted = async () => {
    const metric = await metricsRegistry.getSingleMetric('lead_returns_total')!.get();
    const labels = { offer_id: world.offerIds[0], reason: 'wrong_number', source: 'import' };
    return metric.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0;
  };

  it('books a return the rule allows and counts it by offer, reason and source', async () => {
    const leadId = await soldLead(world, world.offerIds[0]);
    const before = await counted();
    await expect(returnLead(returns, request(leadId))).resolves.toMatchObject({
      kind: 'returned',
      offerId: world.offerIds[0],
      reason: 'wrong_number',
    });
    expect(await counted()).toBe(before + 1);
    expect(await ds.query(`SELECT reason, source FROM lead_returns WHERE lead_id = $1`, [leadId])).toEqual([
      { reason: 'wrong_number', source: 'import' },
    ]);
  });

  it('refuses what the rule refuses (a second return, a lead the school did not buy) and counts nothing', async () => {
    const leadId = await soldLead(world, world.offerIds[0]);
    await returnLead(returns, request(leadId));
    const before = await counted();
    await expect(returnLead(returns, request(leadId))).resolves.toEqual({ kind: 'refused', decision: REFUSAL.alreadyReturned });
    await expect(returnLead(returns, request(randomUUID()))).resolves.toEqual({ kind: 'refused', decision: REFUSAL.returnLeadNotFound });
    expect(await counted()).toBe(before);
  });
});
