import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { Lead } from '../../../libs/domain/src';
import { LeadActivitySeed, opsOwnOffer } from './lead-activity-seed';
import { ops } from './ops-test-support';
import { campaign } from '../../support/catalog-builder';

/**
 * `ops report` against a day of traffic written in the real schema: three
 * campaigns of two affiliates over three offers, accepted, refused (service
 * and buyer), pending, test and direct-post submits, and events on both edges
 * of the window. Every figure is asserted exactly, for each --by.
 *
 * The day is in 2021, a window no other test writes into, so totals are exact too.
 */
describe('ops report', () => {
  let ds: DataSource;
  const id = () => randomUUID();
  const ids = { a1: id(), a2: id(), s1: id(), s2: id(), s3: id(), o1: id(), o2: id(), o3: id(), c1: id(), c2: id(), c3: id() };
  const DAY = ['--from', '2021-06-01', '--to', '2021-06-02'];
  const lead = (n: number): Lead => ({
    personal: {
      first_name: 'Report',
      last_name: `Person${'abcdefghijklmnop'[n]}`,
      email: `report.${n}@example.com`,
      phone: `51255501${String(n).padStart(2, '0')}`,
    },
    address: { state: 'TX', zip_code: '75001' },
  });

  beforeAll(async () => {
    const seed = await LeadActivitySeed.open();
    ds = seed.ds;
    await seed.catalog({
      affiliates: [
        { id: ids.a1, name: 'Alpha Media', status: 'active' },
        { id: ids.a2, name: 'Beta Leads', status: 'active' },
      ],
      schools: [
        { id: ids.s1, name: 'North U', logo_url: null },
        { id: ids.s2, name: 'South College', logo_url: null },
        { id: ids.s3, name: 'West Institute', logo_url: null },
      ],
      offers: [
        opsOwnOffer(ids.o1, ids.s1, 'North Online'),
        opsOwnOffer(ids.o2, ids.s2, 'South Nursing', {
          offer_type: 'exclusive',
          caps: [{ period: 'day', limit: 10, timezone: 'America/Chicago' }],
        }),
        opsOwnOffer(ids.o3, ids.s3, 'West Tech'),
      ],
      campaigns: [
        campaign(ids.c1, ids.a1, 'Alpha main', [
          { offer_id: ids.o1, payout: 10 },
          { offer_id: ids.o2, payout: 20, program_payouts: { gen: 25 } },
          { offer_id: ids.o3, payout: 4 },
        ]),
        campaign(ids.c2, ids.a1, 'Alpha side', [{ offer_id: ids.o1, payout: 5 }]),
        campaign(ids.c3, ids.a2, 'Beta main', [
          { offer_id: ids.o1, payout: 7 },
          { offer_id: ids.o3, payout: 3 },
        ]),
      ],
    });
    const key1 = await seed.apiKey(ids.a1);
    const key2 = await seed.apiKey(ids.a2);
    const a1c1 = { affiliateId: ids.a1, campaignId: ids.c1, apiKeyId: key1 };
    const a1c2 = { affiliateId: ids.a1, campaignId: ids.c2, apiKeyId: key1 };
    const a2c3 = { affiliateId: ids.a2, campaignId: ids.c3, apiKeyId: key2 };
    const accepted = (payout: number) => ({
      status: 'accepted',
      code: 'ACCEPTED',
      reason: 'Lead accepted',
      decidedBy: 'buyer' as const,
      payout,
    });
    const sale = (payout: number) => ({ payout, price: 45 });

    // Alpha main (c1): s1 at the window's first millisecond, s3 at its last; s4 just before it; a test search.
    const s1 = await seed.search({
      ...a1c1,
      at: '2021-06-01T00:00:00.000Z',
      lead: lead(1),
      shown: [
        { offerId: ids.o1, payout: 10 },
        { offerId: ids.o2, payout: 25 },
      ],
      notShown: [{ offerId: ids.o3, reason: 'not_eligible', detail: 'states' }],
    });
    await seed.submit({
      ...a1c1,
      at: '2021-06-01T00:05:00Z',
      lead: lead(1),
      offerId: ids.o1,
      searchId: s1.searchId,
      resultId: s1.resultIds.get(ids.o1),
      decision: accepted(10),
      sale: sale(10),
    });
    await seed.submit({
      ...a1c1,
      at: '2021-06-01T00:06:00Z',
      lead: lead(1),
      offerId: ids.o2,
      searchId: s1.searchId,
      resultId: s1.resultIds.get(ids.o2),
      decision: { status: 'rejected', code: 'BUYER_REJECTED', reason: 'Rejected - Client', decidedBy: 'buyer' },
      sale: { ...sale(25), capPeriods: ['day'] },
    });
    const s2 = await seed.search({
      ...a1c1,
      at: '2021-06-01T10:00:00Z',
      lead: lead(2),
      shown: [
        { offerId: ids.o2, payout: 25 },
        { offerId: ids.o1, payout: 10 },
        { offerId: ids.o3, payout: 4 },
      ],
    });
    await seed.submit({
      ...a1c1,
      at: '2021-06-01T10:01:00Z',
      lead: lead(2),
      offerId: ids.o3,
      searchId: s2.searchId,
      resultId: s2.resultIds.get(ids.o3),
      decision: { status: 'rejected', code: 'CAP_REACHED', reason: 'Cap reached', decidedBy: 'service' },
    });
    await seed.submit({
      ...a1c1,
      at: '2021-06-01T10:02:00Z',
      lead: lead(2),
      offerId: ids.o2,
      searchId: s2.searchId,
      resultId: s2.resultIds.get(ids.o2),
      programId: 'gen',
      decision: accepted(25),
      sale: { ...sale(25), capPeriods: ['day'] },
    });
    const s3 = await seed.search({
      ...a1c1,
      at: '2021-06-01T23:59:59.999Z',
      lead: lead(3),
      shown: [{ offerId: ids.o1, payout: 10 }],
      notShown: [
        { offerId: ids.o2, reason: 'cap_reached' },
        { offerId: ids.o3, reason: 'not_eligible', detail: 'education_levels' },
      ],
    });
    await seed.submit({
      ...a1c1,
      at: '2021-06-02T00:00:00.000Z',
      lead: lead(3),
      offerId: ids.o1,
      searchId: s3.searchId,
      resultId: s3.resultIds.get(ids.o1),
      decision: accepted(10),
      sale: sale(10),
    }); // at `to`: outside
    const s4 = await seed.search({
      ...a1c1,
      at: '2021-05-31T23:59:59.999Z',
      lead: lead(4),
      shown: [{ offerId: ids.o1, payout: 10 }],
      notShown: [
        { offerId: ids.o2, reason: 'duplicate' },
        { offerId: ids.o3, reason: 'not_eligible' },
      ],
    }); // before `from`: outside
    await seed.submit({
      ...a1c1,
      at: '2021-06-01T00:00:30Z',
      lead: lead(4),
      offerId: ids.o1,
      searchId: s4.searchId,
      resultId: s4.resultIds.get(ids.o1),
      decision: accepted(10),
      sale: sale(10),
    }); // its submit is inside: counted
    const t1 = await seed.search({
      ...a1c1,
      at: '2021-06-01T12:00:00Z',
      lead: lead(5),
      isTest: true,
      shown: [
        { offerId: ids.o1, payout: 10 },
        { offerId: ids.o2, payout: 25 },
        { offerId: ids.o3, payout: 4 },
      ],
    });
    await seed.submit({
      ...a1c1,
      at: '2021-06-01T12:01:00Z',
      lead: lead(5),
      offerId: ids.o1,
      searchId: t1.searchId,
      resultId: t1.resultIds.get(ids.o1),
      isTest: true,
      decision: { status: 'held', code: 'TEST_LEAD_HELD', reason: 'Test lead held', decidedBy: 'service' },
    });

    // Alpha side (c2): a duplicate, then a submit still pending; a direct post accepted.
    const s5 = await seed.search({ ...a1c2, at: '2021-06-01T08:00:00Z', lead: lead(6), shown: [{ offerId: ids.o1, payout: 5 }] });
    await seed.submit({
      ...a1c2,
      at: '2021-06-01T08:01:00Z',
      lead: lead(6),
      offerId: ids.o1,
      searchId: s5.searchId,
      resultId: s5.resultIds.get(ids.o1),
      decision: { status: 'rejected', code: 'DUPLICATE', reason: 'Duplicate - Offer', decidedBy: 'service' },
    });
    await seed.submit({
      ...a1c2,
      at: '2021-06-01T09:30:00Z',
      lead: lead(6),
      offerId: ids.o1,
      searchId: s5.searchId,
      resultId: s5.resultIds.get(ids.o1),
      decision: { status: 'pending' },
    });
    await seed.submit({ ...a1c2, at: '2021-06-01T09:00:00Z', lead: lead(7), offerId: ids.o1, decision: accepted(5), sale: sale(5) });

    // Beta main (c3): one accepted, one invalid; a search that showed nothing.
    const s6 = await seed.search({
      ...a2c3,
      at: '2021-06-01T15:00:00Z',
      lead: lead(8),
      shown: [
        { offerId: ids.o1, payout: 7 },
        { offerId: ids.o3, payout: 3 },
      ],
    });
    await seed.submit({
      ...a2c3,
      at: '2021-06-01T15:01:00Z',
      lead: lead(8),
      offerId: ids.o3,
      searchId: s6.searchId,
      resultId: s6.resultIds.get(ids.o3),
      decision: accepted(3),
      sale: sale(3),
    });
    await seed.submit({
      ...a2c3,
      at: '2021-06-01T15:02:00Z',
      lead: lead(8),
      offerId: ids.o1,
      searchId: s6.searchId,
      resultId: s6.resultIds.get(ids.o1),
      decision: {
        status: 'invalid',
        code: 'REQUIRED_FIELD_MISSING',
        reason: 'Missing tcpa_consent',
        field: 'tcpa_consent',
        decidedBy: 'service',
      },
    });
    await seed.search({
      ...a2c3,
      at: '2021-06-01T16:00:00Z',
      lead: lead(9),
      shown: [],
      notShown: [
        { offerId: ids.o1, reason: 'not_eligible', detail: 'states' },
        { offerId: ids.o3, reason: 'not_eligible', detail: 'states' },
      ],
    });
  });

  afterAll(async () => {
    await ds?.destroy();
  });

  const codes = (c: Record<string, number>) => ({
    ACCEPTED: 0,
    PENDING: 0,
    TEST_LEAD_HELD: 0,
    OFFER_UNAVAILABLE: 0,
    REQUIRED_FIELD_MISSING: 0,
    INVALID_FIELD: 0,
    CONSENT_REQUIRED: 0,
    NOT_ELIGIBLE: 0,
    DUPLICATE: 0,
    CAP_REACHED: 0,
    BUYER_REJECTED: 0,
    ...c,
  });
  const figures = (
    searches: number,
    results: number,
    submits: number,
    byCode: Record<string, number>,
    accepted: number,
    payouts: number,
  ) => ({
    searches,
    results_shown: results,
    submits,
    submits_by_code: codes(byCode),
    accepted,
    payouts,
  });
  const DAY_TOTALS = figures(
    6,
    9,
    10,
    { ACCEPTED: 5, PENDING: 1, BUYER_REJECTED: 1, CAP_REACHED: 1, DUPLICATE: 1, REQUIRED_FIELD_MISSING: 1 },
    5,
    53,
  );

  async function json(...args: string[]) {
    const run = await ops('report', ...args, '--json');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return JSON.parse(run.stdout);
  }

  it('--by campaign: every figure per campaign and the totals, test traffic left out, over [from, to)', async () => {
    const report = await json(...DAY, '--by', 'campaign');
    expect(Object.keys(report)).toEqual(['from', 'to', 'by', 'include_test', 'affiliate_id', 'codes', 'groups', 'totals']);
    expect(report).toMatchObject({
      from: '2021-06-01T00:00:00.000Z',
      to: '2021-06-02T00:00:00.000Z',
      by: 'campaign',
      include_test: false,
      affiliate_id: null,
    });
    expect(report.codes).toEqual(Object.keys(codes({})));
    expect(report.groups).toEqual([
      { id: ids.c1, name: 'Alpha main', ...figures(3, 6, 5, { ACCEPTED: 3, BUYER_REJECTED: 1, CAP_REACHED: 1 }, 3, 45) },
      { id: ids.c2, name: 'Alpha side', ...figures(1, 1, 3, { ACCEPTED: 1, DUPLICATE: 1, PENDING: 1 }, 1, 5) },
      { id: ids.c3, name: 'Beta main', ...figures(2, 2, 2, { ACCEPTED: 1, REQUIRED_FIELD_MISSING: 1 }, 1, 3) },
    ]);
    expect(report.totals).toEqual(DAY_TOTALS);
    expect(Object.keys(report.groups[0])).toEqual([
      'id',
      'name',
      'searches',
      'results_shown',
      'submits',
      'submits_by_code',
      'accepted',
      'payouts',
    ]);
  });

  it('--by affiliate', async () => {
    const report = await json(...DAY, '--by', 'affiliate');
    expect(report.groups).toEqual([
      {
        id: ids.a1,
        name: 'Alpha Media',
        ...figures(4, 7, 8, { ACCEPTED: 4, BUYER_REJECTED: 1, CAP_REACHED: 1, DUPLICATE: 1, PENDING: 1 }, 4, 50),
      },
      { id: ids.a2, name: 'Beta Leads', ...figures(2, 2, 2, { ACCEPTED: 1, REQUIRED_FIELD_MISSING: 1 }, 1, 3) },
    ]);
    expect(report.totals).toEqual(DAY_TOTALS);
  });

  it('--by offer: searches are those that considered the offer; the totals count each search once', async () => {
    const report = await json(...DAY, '--by', 'offer');
    expect(report.groups).toEqual([
      {
        id: ids.o1,
        name: 'North Online',
        ...figures(6, 5, 6, { ACCEPTED: 3, DUPLICATE: 1, PENDING: 1, REQUIRED_FIELD_MISSING: 1 }, 3, 25),
      },
      { id: ids.o2, name: 'South Nursing', ...figures(3, 2, 2, { ACCEPTED: 1, BUYER_REJECTED: 1 }, 1, 25) },
      { id: ids.o3, name: 'West Tech', ...figures(5, 2, 2, { ACCEPTED: 1, CAP_REACHED: 1 }, 1, 3) },
    ]);
    expect(report.totals).toEqual(DAY_TOTALS);
  });

  it('--include-test counts the test search, its results and its held submit', async () => {
    const report = await json(...DAY, '--by', 'campaign', '--include-test');
    expect(report.include_test).toBe(true);
    expect(report.groups[0]).toEqual({
      id: ids.c1,
      name: 'Alpha main',
      ...figures(4, 9, 6, { ACCEPTED: 3, BUYER_REJECTED: 1, CAP_REACHED: 1, TEST_LEAD_HELD: 1 }, 3, 45),
    });
    expect(report.totals).toEqual(figures(7, 12, 11, { ...DAY_TOTALS.submits_by_code, TEST_LEAD_HELD: 1 }, 5, 53));
  });

  it('--affiliate narrows every figure to one affiliate', async () => {
    const report = await json(...DAY, '--by', 'campaign', '--affiliate', ids.a2);
    expect(report.affiliate_id).toBe(ids.a2);
    expect(report.groups).toEqual([
      { id: ids.c3, name: 'Beta main', ...figures(2, 2, 2, { ACCEPTED: 1, REQUIRED_FIELD_MISSING: 1 }, 1, 3) },
    ]);
    expect(report.totals).toEqual(figures(2, 2, 2, { ACCEPTED: 1, REQUIRED_FIELD_MISSING: 1 }, 1, 3));
  });

  it('the window is half-open to the millisecond, and zones are honoured', async () => {
    // One millisecond later: s1 (at from) drops out with its two results; nothing else moves.
    const later = await json('--from', '2021-06-01T00:00:00.001Z', '--to', '2021-06-02', '--by', 'campaign');
    expect(later.groups[0]).toMatchObject({ id: ids.c1, searches: 2, results_shown: 4, submits: 5 });
    // One millisecond more at the end: the submit at exactly `to` comes in.
    const longer = await json(...DAY.slice(0, 2), '--to', '2021-06-02T00:00:00.001Z', '--by', 'campaign');
    expect(longer.groups[0]).toMatchObject({ id: ids.c1, searches: 3, submits: 6, accepted: 4, payouts: 55 });
    // The same day written in New York time (UTC-4 in June) is the same window.
    const zoned = await json('--from', '2021-05-31T20:00:00-04:00', '--to', '2021-06-01T20:00:00-04:00', '--by', 'campaign');
    expect(zoned.groups).toEqual((await json(...DAY, '--by', 'campaign')).groups);
    // Ten o'clock to one minute past: s2 only; its submits at 10:01 and 10:02 are outside.
    const minute = await json('--from', '2021-06-01T10:00:00Z', '--to', '2021-06-01T10:01:00Z', '--by', 'campaign');
    expect(minute.groups).toEqual([{ id: ids.c1, name: 'Alpha main', ...figures(1, 3, 0, {}, 0, 0) }]);
  });

  it('an empty window answers empty groups and zero totals', async () => {
    const report = await json('--from', '2021-07-01', '--to', '2021-07-02', '--by', 'offer');
    expect(report.groups).toEqual([]);
    expect(report.totals).toEqual(figures(0, 0, 0, {}, 0, 0));
    const text = await ops('report', '--from', '2021-07-01', '--to', '2021-07-02', '--by', 'offer');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('No searches or submits in this window.');
  });

  it('prints an aligned table: a column per code seen, the totals last', async () => {
    const run = await ops('report', ...DAY, '--by', 'campaign');
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'Activity from 2021-06-01T00:00:00.000Z (included) to 2021-06-02T00:00:00.000Z (excluded), by campaign; test traffic excluded (--include-test to include it)',
    );
    const table = lines.slice(2);
    const cols = (line: string) => line.trim().split(/\s{2,}/);
    expect(cols(table[0])).toEqual([
      'CAMPAIGN',
      'ID',
      'SEARCHES',
      'RESULTS',
      'SUBMITS',
      'PENDING',
      'REQUIRED_FIELD_MISSING',
      'DUPLICATE',
      'CAP_REACHED',
      'BUYER_REJECTED',
      'ACCEPTED',
      'PAYOUTS',
    ]);
    expect(cols(table[1])).toEqual(['Alpha main', ids.c1, '3', '6', '5', '0', '0', '0', '1', '1', '3', '45.00']);
    expect(cols(table[2])).toEqual(['Alpha side', ids.c2, '1', '1', '3', '1', '0', '1', '0', '0', '1', '5.00']);
    expect(cols(table[3])).toEqual(['Beta main', ids.c3, '2', '2', '2', '0', '1', '0', '0', '0', '1', '3.00']);
    expect(cols(table[4])).toEqual(['TOTAL', '6', '9', '10', '1', '1', '1', '1', '1', '5', '53.00']);
    // Aligned: every row as long as the header, numbers right-aligned under their header's end.
    const width = table[0].length;
    for (const line of table.slice(1)) expect(line.length).toBe(width);
    expect(table).toHaveLength(5);
  });

  it.each([
    [
      ['--from', 'yesterday', '--to', '2021-06-02', '--by', 'campaign'],
      /option '--from <iso>' argument 'yesterday' is invalid\. expected an ISO 8601 date/,
    ],
    [['--from', '2021-02-30', '--to', '2021-06-02', '--by', 'campaign'], /argument '2021-02-30' is invalid\. not a real date/],
    [['--from', '2021-06-01T10:00:00', '--to', '2021-06-02', '--by', 'campaign'], /with a zone/],
    [
      ['--from', '2021-06-02', '--to', '2021-06-02', '--by', 'campaign'],
      /--from 2021-06-02T00:00:00.000Z must be before --to 2021-06-02T00:00:00.000Z/,
    ],
    [['--from', '2021-06-03', '--to', '2021-06-02', '--by', 'campaign'], /must be before --to/],
    [
      ['--from', '2021-06-01', '--to', '2021-06-02', '--by', 'school'],
      /argument 'school' is invalid\. Allowed choices are campaign, offer, affiliate/,
    ],
    [['--from', '2021-06-01', '--to', '2021-06-02'], /required option '--by <dimension>' not specified/],
    [['--to', '2021-06-02', '--by', 'offer'], /required option '--from <iso>' not specified/],
    [['--from', '2021-06-01', '--to', '2021-06-02', '--by', 'offer', '--affiliate', 'acme'], /argument 'acme' is invalid\. must be a UUID/],
  ])('a wrong command line is a usage error (exit 2): %j', async (args, message) => {
    const run = await ops('report', ...args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });

  it('an unknown affiliate is refused (exit 1)', async () => {
    const run = await ops('report', ...DAY, '--by', 'campaign', '--affiliate', randomUUID());
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: unknown affiliate [0-9a-f-]{36}$/m);
  });

  it('reads the window through the created_at indexes', async () => {
    const plan = async (table: string) => {
      const runner = ds.createQueryRunner(); // one connection: the setting and the EXPLAIN must share it
      try {
        await runner.query('SET enable_seqscan = off'); // the test tables are tiny: ask whether an index can serve, not which is cheaper
        const rows: Array<{ 'QUERY PLAN': string }> = await runner.query(
          `EXPLAIN SELECT count(*) FROM ${table} WHERE created_at >= '2021-06-01' AND created_at < '2021-06-02'`,
        );
        await runner.query('RESET enable_seqscan');
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await runner.release();
      }
    };
    // Every partition reads its part of ix_searches_created_at (PostgreSQL names a partition's index <partition>_created_at_idx).
    const searches = await plan('searches');
    expect(searches).toMatch(/Index (Only )?Scan using searches_\w+_created_at_idx/);
    expect(searches).not.toMatch(/Seq Scan/);
    expect(await plan('leads')).toMatch(/ix_leads_created_at/);
  });
});
