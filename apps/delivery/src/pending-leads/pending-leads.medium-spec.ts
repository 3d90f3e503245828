import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { metricsRegistry } from '@lr/observability';
import { LeadRepository, PENDING_LEADS, SaleLedger, SearchRepository } from '@lr/persistence';
import { SearchStatePublisher } from '@lr/search-state';
import {
  fakeSchool,
  keyStoreSealer,
  mediumDataSource,
  mediumRedis,
  reservedLead,
  submitWorld,
} from '../../../../test/support/medium-world';
import { agePendingLead } from '../../../../test/support/stored-rows';
import { BuyerCalls } from '../deliver-lead/buyer-calls';
import { DeliverLead } from '../deliver-lead/deliver-lead.usecase';
import { PendingLeadsGauge } from './pending-leads.gauge';

/**
 * delivery's gauges of the leads waiting for their buyer, on the real
 * PostgreSQL (medium tier): a lead reserved by checks' DecideSubmit counts
 * until DeliverLead books its buyer's answer, the oldest one's age is measured
 * by PostgreSQL's clock, and the statement is served by the partial index of
 * the pending leads. Other medium files reserve leads at the same time, so
 * this file's lead is made the oldest by far rather than the only one.
 */

let ds: DataSource;
let redis: Redis;
let school: Awaited<ReturnType<typeof fakeSchool>>;

beforeAll(async () => {
  ds = await mediumDataSource(4);
  redis = mediumRedis();
  school = await fakeSchool();
});

afterAll(async () => {
  await school?.close();
  redis?.disconnect();
  await ds?.destroy();
});

/** The gauge's value as /metrics shows it. */
async function shown(name: string): Promise<number> {
  const text = await metricsRegistry.getSingleMetricAsString(name);
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (!m) throw new Error(`no sample of ${name} in:\n${text}`);
  return Number(m[1]);
}

describe('PendingLeadsGauge (medium: real PostgreSQL)', () => {
  it('counts a reserved lead until its buyer’s answer is booked, and reports the oldest one’s age', async () => {
    const world = await submitWorld(ds, [{ delivery: { adapter: 'sandbox', url: school.url('/accept'), timeout_ms: 1000 } }]);
    const { deliver } = await reservedLead(world);
    await agePendingLead(ds, deliver.leadId, 2);
    const gauge = new PendingLeadsGauge(new LeadRepository(ds));

    const waiting = await gauge.refresh();
    expect(waiting!.count).toBeGreaterThanOrEqual(1);
    expect(waiting!.oldestSeconds).toBeGreaterThanOrEqual(7200);
    expect(waiting!.oldestSeconds).toBeLessThan(7200 + 120);
    expect(await shown('delivery_pending_lead_oldest_seconds')).toBe(waiting!.oldestSeconds);
    expect(await shown('delivery_pending_leads')).toBe(waiting!.count);

    const delivery = new DeliverLead(
      new SaleLedger(ds),
      new LeadRepository(ds),
      new BuyerCalls(undefined as never, keyStoreSealer()),
      new SearchStatePublisher(redis, new SearchRepository(ds)),
    );
    const answer = await delivery.run(deliver);
    expect(answer).toMatchObject({ kind: 'decision', decision: { code: 'ACCEPTED' } });

    const decided = await gauge.refresh();
    expect(decided!.oldestSeconds).toBeLessThan(7200);
    expect(await shown('delivery_pending_lead_oldest_seconds')).toBe(decided!.oldestSeconds);
  });

  it('reads through the partial index of the pending leads, whatever the size of leads', async () => {
    const runner = ds.createQueryRunner(); // one connection: the setting and the EXPLAIN must share it
    try {
      await runner.query('SET enable_seqscan = off'); // the medium tables are small: ask whether the index can serve, not which is cheaper
      const rows: Array<{ 'QUERY PLAN': string }> = await runner.query(`EXPLAIN ${PENDING_LEADS.text}`);
      await runner.query('RESET enable_seqscan');
      expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/ix_leads_pending_created_at/);
    } finally {
      await runner.release();
    }
  });

  it('keeps its last values and never throws while PostgreSQL cannot answer', async () => {
    const gauge = new PendingLeadsGauge(new LeadRepository(ds));
    const last = await gauge.refresh();
    const gone = await mediumDataSource(1);
    await gone.destroy();
    Logger.overrideLogger(false); // the one warning it writes is expected here
    try {
      await expect(new PendingLeadsGauge(new LeadRepository(gone)).refresh()).resolves.toBeUndefined();
    } finally {
      Logger.overrideLogger(['log', 'error', 'warn']);
    }
    expect(await shown('delivery_pending_leads')).toBe(last!.count);
    expect(await shown('delivery_pending_lead_oldest_seconds')).toBe(last!.oldestSeconds);
  });
});
