import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { Lead } from '../../../libs/domain/src';
import { LeadActivitySeed, opsOwnOffer } from './lead-activity-seed';
import { ops } from './ops-test-support';
import { campaign } from '../../support/catalog-builder';

/**
 * `ops deliveries unresolved`: the leads whose buyer call a crash cut and that
 * could not be sent again (attempt outcome `interrupted`), in a window, oldest
 * first; never a lead whose buyer answered; never contact data.
 */
describe('ops deliveries unresolved', () => {
  let ds: DataSource;
  const id = () => randomUUID();
  const ids = { aff: id(), camp: id(), school: id(), offer: id() };
  const person: Lead = {
    personal: { first_name: 'Quentin', last_name: 'Canaryfield', email: 'quentin.canary@canarymail.example', phone: '5125550188' },
    address: { state: 'TX', zip_code: '73301' },
    education: { education_level: 'associate' },
  };
  const lead = { interrupted: '', interruptedLater: '', answered: '', outside: '' };
  const base = Date.parse('2026-03-10T12:00:00Z');
  const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();

  beforeAll(async () => {
    const seed = await LeadActivitySeed.open();
    ds = seed.ds;
    await seed.catalog({
      affiliates: [{ id: ids.aff, name: 'Reconcile Affiliate', status: 'active' }],
      schools: [{ id: ids.school, name: 'Harbor College', logo_url: null }],
      offers: [
        opsOwnOffer(ids.offer, ids.school, 'Harbor Nursing', {
          delivery: { adapter: 'json', url: 'http://127.0.0.1:9/leads', timeout_ms: 5000 },
        }),
      ],
      campaigns: [campaign(ids.camp, ids.aff, 'Reconcile', [{ offer_id: ids.offer, payout: 10 }])],
    });
    const apiKeyId = await seed.apiKey(ids.aff);
    const unanswered = {
      status: 'rejected',
      code: 'BUYER_REJECTED',
      reason: 'No response - Client',
      decidedBy: 'service' as const,
      afterMs: 9000,
    };
    const interrupted = {
      outcome: 'interrupted',
      httpStatus: null,
      latencyMs: 0,
      detail: 'worker stopped during the call',
      startAfterMs: 100,
      durationMs: 9000,
    };
    const common = { affiliateId: ids.aff, campaignId: ids.camp, apiKeyId, offerId: ids.offer, lead: person };
    lead.interrupted = await seed.submit({ ...common, at: at(0), decision: unanswered, attempt: interrupted });
    lead.interruptedLater = await seed.submit({ ...common, at: at(30), decision: unanswered, attempt: interrupted });
    lead.answered = await seed.submit({
      ...common,
      at: at(10),
      decision: { status: 'accepted', code: 'ACCEPTED', reason: 'Accepted', decidedBy: 'buyer', payout: 10 },
      attempt: { outcome: 'accepted', httpStatus: 200, latencyMs: 120, detail: null, startAfterMs: 100, durationMs: 120 },
    });
    lead.outside = await seed.submit({ ...common, at: at(24 * 60), decision: unanswered, attempt: interrupted });
  });

  afterAll(() => ds?.destroy());

  it('lists the interrupted deliveries of the window, oldest first, with the buyer, offer and decision (JSON)', async () => {
    const run = await ops('deliveries', 'unresolved', '--from', at(-1), '--to', at(60), '--json');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    const ours = out.deliveries.filter((d: { offerId: string }) => d.offerId === ids.offer);
    expect(ours.map((d: { leadId: string }) => d.leadId)).toEqual([lead.interrupted, lead.interruptedLater]);
    expect(ours[0]).toMatchObject({
      buyer: 'Harbor College',
      buyerKind: 'school',
      offerName: 'Harbor Nursing',
      affiliateId: ids.aff,
      code: 'BUYER_REJECTED',
      isTest: false,
    });
  });

  it('prints a table an operator reads, with no contact data; --limit bounds it; a backwards window is a usage error', async () => {
    const run = await ops('deliveries', 'unresolved', '--from', at(-1), '--to', at(60));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(lead.interrupted);
    expect(run.stdout).toContain('school Harbor College');
    expect(run.stdout).not.toContain(lead.answered);
    expect(run.stdout).not.toContain(lead.outside);
    for (const canary of ['Quentin', 'Canaryfield', 'canarymail', '5125550188']) expect(run.stdout).not.toContain(canary);
    const limited = JSON.parse((await ops('deliveries', 'unresolved', '--from', at(-1), '--to', at(60), '--limit', '1', '--json')).stdout);
    expect(limited.count).toBe(1);
    const backwards = await ops('deliveries', 'unresolved', '--from', at(60), '--to', at(-1));
    expect(backwards.code).not.toBe(0);
    expect(backwards.stderr).toContain('must be before');
  });
});
