import { randomBytes, randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import type { SubmitRequestedV1 } from '../../../libs/contracts/src';
import { createDataSource, LeadRepository, SaleLedger, SearchRepository } from '../../../libs/persistence/src';
import { CampaignCatalog } from '../../../libs/platform/src';
import { SearchStatePublisher } from '../../../libs/search-state/src';
import { DecideSubmit } from '../../../apps/checks/src/decide-submit/decide-submit.usecase';
import { MergePartnerAnswer } from '../../../apps/search-orchestrator/src/merge-partner-answer/merge-partner-answer.usecase';
import { StartSearch } from '../../../apps/search-orchestrator/src/start-search/start-search.usecase';
import {
  acceptedSaleOnSearch,
  answerOf,
  capSlot,
  partnerAnswer,
  partnerResult,
  person,
  searchRequest,
  soldToPerson,
  useCap,
  world,
  World,
} from '../../support/medium-world';
import { TEST_DATABASE_URL, TEST_REDIS_URL, testConfig, uniqueSuffix } from '../../support/test-env';
import { ops } from './ops-test-support';
import { TEST_PERSON_KEY_SECRET } from '../../support/person-key';
import { keyStoreSealer } from '../../support/medium-world';

/**
 * `ops lead explain` on searches and a submit made by the real use cases
 * (search-orchestrator's StartSearch and MergePartnerAnswer, checks'
 * DecideSubmit) on the test database: one campaign whose offers each fall to
 * one rule for the same person (state, age, education level, a program's
 * eligibility, a day cap, a total cap, the duplicate window, a school already
 * shown, a partner that timed out, a lead sold out by a true_exclusive sale),
 * and a submit refused because of that sale. The CLI must name each rule with
 * its facts, and mask contact data.
 */
describe('ops lead explain', () => {
  let ds: DataSource;
  let redis: Redis;
  const specs = {
    ok: { school: 'A', priority: 5, payout: 20 },
    ok2: { school: 'A', priority: 1, payout: 10 },
    state: { school: 'B', eligibility: { states: ['CA', 'NV'] } },
    age: { school: 'C', eligibility: { min_age: 40 } },
    edu: { school: 'D', eligibility: { education_levels: ['bachelor', 'master'] } },
    prog: { school: 'E', programs: [{ value: 'msn', label: 'MSN', eligibility: { education_levels: ['master'] } }] },
    day: { school: 'F', caps: [{ period: 'day', limit: 2 }] },
    total: { school: 'G', caps: [{ period: 'total', limit: 1 }] },
    dup: { school: 'H', duplicateWindowDays: 30 },
    excl: { school: 'I', priority: 9, offerType: 'true_exclusive' as const },
    slow: { school: 'J', partner: 'slow' },
    late: { school: 'K', partner: 'fast' },
  };
  let w: World<keyof typeof specs>;
  const lead = person();
  let searchId: string;
  let refusedSubmit: string;

  beforeAll(async () => {
    ds = createDataSource({ url: TEST_DATABASE_URL, poolSize: 3, timeoutMs: 10_000 });
    await ds.initialize();
    redis = new Redis(TEST_REDIS_URL, { keyPrefix: `test:${uniqueSuffix()}:`, maxRetriesPerRequest: 1 });
    w = await world(ds, specs);
    const now = new Date();
    await useCap(ds, capSlot(w.ids.offers.day, null, 'day', now), 2);
    await useCap(ds, capSlot(w.ids.offers.total, null, 'total', now), 1);
    await soldToPerson(ds, w, lead, 'dup', '3 days 2 hours');

    const config = testConfig('search-orchestrator', uniqueSuffix(), { CATALOG_CACHE_MS: '0' });
    const catalog = new CampaignCatalog(ds, config);
    const ledger = new SaleLedger(ds);
    const searches = new SearchRepository(ds);
    const state = new SearchStatePublisher(redis, searches);
    const start = new StartSearch(catalog, ledger, searches, state, config);
    const merge = new MergePartnerAnswer(catalog, searches, ledger, state, config);

    const msg = searchRequest(w, lead);
    searchId = msg.searchId;
    const answer = answerOf((await start.run(msg)).body);
    const resultOf = (offerId: string) => answer.offers.find((r) => r.offer.id === offerId)!.svc_result_id;
    // The lead is sold true_exclusive; then one partner's result comes, and the other partner times out.
    await acceptedSaleOnSearch(ds, w, searchId, resultOf(w.ids.offers.excl), 'excl', lead);
    await merge.run(partnerAnswer(w, searchId, 'fast', [partnerResult(w, 'late')]));
    await merge.run(partnerAnswer(w, searchId, 'slow', [], { outcome: 'timeout', latencyMs: 4000, detail: 'no answer within 4000 ms' }));

    const submit: SubmitRequestedV1 = {
      leadId: randomUUID(),
      kind: 'result_submit',
      affiliateId: w.ids.affiliate,
      apiKeyId: w.ids.apiKey,
      campaignId: w.ids.campaign,
      resultId: resultOf(w.ids.offers.ok),
      searchId,
      offerId: null,
      originLeadId: null,
      lead: null,
      tracking: null,
      consumerIp: null,
      ipSource: null,
      programId: null,
      answers: {},
      tcpaConsent: true,
      consentButtonLabel: 'Request info',
      formCertUrl: null,
      universalLeadCert: null,
      isTest: false,
      requestedAt: new Date().toISOString(),
    };
    const checks = new DecideSubmit(
      new CampaignCatalog(ds, testConfig('checks', randomBytes(4).toString('hex'), { CATALOG_CACHE_MS: '0' })),
      new LeadRepository(ds),
      ledger,
      keyStoreSealer(TEST_DATABASE_URL),
      { personKeySecret: TEST_PERSON_KEY_SECRET },
    );
    const outcome = await checks.run(submit);
    expect(outcome).toMatchObject({ answer: { decision: { code: 'NOT_ELIGIBLE' } } });
    refusedSubmit = submit.leadId;
  });

  afterAll(async () => {
    redis?.disconnect();
    await ds?.destroy();
  });

  const noContactData = (out: string) => {
    const p = lead.personal!;
    for (const raw of [p.email!, p.phone!, p.last_name!, p.date_of_birth!, lead.address!.zip_code!]) expect(out).not.toContain(raw);
  };

  it('names the deciding rule of every offer not shown, with its facts, as text', async () => {
    const run = await ops('lead', 'explain', searchId);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = run.stdout;
    noContactData(out);
    const block = (k: keyof typeof specs) => {
      const start = out.indexOf(`  ${w.offerName(k)} (${w.ids.offers[k]})`);
      expect(start).toBeGreaterThanOrEqual(0);
      const end = out.indexOf('\n  O', start + 1);
      return out.slice(start, end === -1 ? undefined : end);
    };
    expect(block('ok')).toMatch(/: shown, rank \d+ \(result [0-9a-f-]+\)/);
    expect(block('state')).toMatch(
      /not shown: not_eligible \(states\)\n {4}rule +state TX not in \[CA, NV\]\n {4}facts +lead state = TX \(stored\); offer states = \[CA, NV\] \(now\)/,
    );
    expect(block('age')).toMatch(/rule +age 31 below min_age 40/);
    expect(block('edu')).toMatch(/rule +education level associate not in \[bachelor, master\]/);
    expect(block('prog')).toMatch(
      /not shown: no_eligible_program \(programs\.msn\.education_levels\)\n {4}rule +no program qualifies: msn: education level associate not in \[master\]/,
    );
    expect(block('prog')).toMatch(/program +msn \(MSN\): education level associate not in \[master\]/);
    expect(block('day')).toMatch(/not shown: cap_reached\n {4}rule +day cap 2 of 2 reached \(America\/Chicago\)/);
    expect(block('total')).toMatch(/rule +total cap 1 of 1 reached\n/);
    expect(block('dup')).toMatch(/not shown: duplicate\n {4}rule +sold to this person 3 days ago \(\S+\); window 30 days/);
    expect(block('ok2')).toMatch(
      new RegExp(
        `not shown: school_already_shown\\n {4}rule +a live search shows each school once: ${w.offerName('ok')} \\(${w.ids.offers.ok}\\) ranks higher \\(priority 5 vs 1, payout 20\\.00 vs 10\\.00\\)`,
      ),
    );
    expect(block('slow')).toMatch(
      /not shown: partner_timeout \(no answer within 4000 ms\)\n {4}rule +partner \S+ \S+ \S+ timed out after 4,000 ms \(timeout_ms 5,000 now\)/,
    );
    expect(block('late')).toMatch(
      new RegExp(
        `not shown: sale_closed \\(sold_true_exclusive\\)\\n {4}rule +sold out: the lead was sold true_exclusive to ${w.offerName('excl')} \\(${w.ids.offers.excl}\\), which ends its other sales`,
      ),
    );
    expect(out).not.toMatch(/^ {4}note /m);
  });

  it('--json: per offer the stored decision, the verdict asked again, the rule and each fact with its source', async () => {
    const run = await ops('lead', 'explain', searchId, '--json');
    expect(run.code).toBe(0);
    noContactData(run.stdout);
    const x = JSON.parse(run.stdout);
    expect(x.asked).toEqual({ id: searchId, is: 'search' });
    expect(x.lead.personal.email).toMatch(/^p\*\*\*@e\*\*\*\.com$/);
    const byId = new Map(x.search.offers.map((o: { offer: { id: string } }) => [o.offer.id, o]));
    expect(x.search.offers).toHaveLength(Object.keys(specs).length);
    for (const o of x.search.offers) expect([o.offer.name, o.agrees]).toEqual([o.offer.name, true]);
    expect(byId.get(w.ids.offers.state)).toMatchObject({
      stored: { shown: false, reason: 'not_eligible', detail: 'states' },
      verdict: { shown: false, reason: 'not_eligible', detail: 'states' },
      rule: 'state TX not in [CA, NV]',
      facts: [
        { name: 'lead state', value: 'TX', source: 'stored' },
        { name: 'offer states', value: ['CA', 'NV'], source: 'now' },
      ],
    });
    expect(byId.get(w.ids.offers.day)).toMatchObject({
      verdict: { reason: 'cap_reached' },
      facts: expect.arrayContaining([{ name: 'day cap limit', value: 2, source: 'now' }]),
    });
    expect(byId.get(w.ids.offers.ok)).toMatchObject({
      stored: { shown: true, rank: expect.any(Number) },
      verdict: { shown: true },
      rule: null,
      programs: [{ value: 'gen', eligible: true }],
    });
    expect(byId.get(w.ids.offers.slow)).toMatchObject({
      source: 'partner',
      verdict: { reason: 'partner_timeout' },
      facts: expect.arrayContaining([{ name: 'partner call latency ms', value: 4000, source: 'stored' }]),
    });
  });

  it('by a submit id: the rule behind its decision, asked again on the facts as of the submit', async () => {
    const run = await ops('lead', 'explain', refusedSubmit, '--json');
    expect(run.code).toBe(0);
    noContactData(run.stdout);
    const x = JSON.parse(run.stdout);
    expect(x.asked).toEqual({ id: refusedSubmit, is: 'submit' });
    const submit = x.submits.find((s: { id: string }) => s.id === refusedSubmit);
    expect(submit).toMatchObject({
      decision: { code: 'NOT_ELIGIBLE', reason: 'Lead already sold exclusively', decided_by: 'service' },
      verdict: { code: 'NOT_ELIGIBLE', reason: 'Lead already sold exclusively' },
      agrees: true,
      rule: expect.stringMatching(/^sold out: the lead was sold true_exclusive to /),
    });
    const text = await ops('lead', 'explain', refusedSubmit);
    expect(text.stdout).toMatch(new RegExp(`^  Submit ${refusedSubmit}  <- the id asked for$`, 'm'));
    expect(text.stdout).toMatch(/^ {4}decision +NOT_ELIGIBLE \(rejected\): Lead already sold exclusively, decided by service at \S+$/m);
  });

  it('an unknown id: exit 1; not a UUID: exit 2', async () => {
    expect(await ops('lead', 'explain', randomUUID())).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/no search or submit has svc_lead_id/),
    });
    expect((await ops('lead', 'explain', 'nope')).code).toBe(2);
  });
});
