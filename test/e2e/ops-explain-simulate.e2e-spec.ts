import { randomUUID } from 'node:crypto';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { campaign, ownOffer, partnerOffer } from '../support/catalog-builder';
import { applyCatalog, issueKey, runOps, writeCatalogFile } from '../support/ops';
import { person, Person, SubmitClient } from '../support/submit-flow';
import { testEnv, uniqueSuffix } from '../support/test-env';

/**
 * The operator's "why not?" on real traffic: searches and submits through the
 * running gateway, search-orchestrator, checks, partner-adapter, delivery and
 * the sandbox, on one campaign whose offers each fall to one rule for the same
 * person (state, age, education level, a program's eligibility, a day cap, a
 * total cap, the duplicate window, a partner that times out) and a submit
 * refused because the lead was sold true_exclusive; then the built CLI's
 * `lead explain` must name each rule with its facts, and `catalog simulate`
 * of a catalog that narrows one offer's states must report exactly the
 * searches that lose it.
 */
describe('ops lead explain and catalog simulate on real searches (e2e)', () => {
  const suffix = uniqueSuffix();
  const env = testEnv(suffix);
  const RULES = ['ok', 'state', 'age', 'edu', 'prog', 'day', 'total', 'dup', 'excl'] as const;
  type Own = (typeof RULES)[number];
  const offerIds = Object.fromEntries(RULES.map((k) => [k, randomUUID()])) as Record<Own, string>;
  const schoolIds = Object.fromEntries(RULES.map((k) => [k, randomUUID()])) as Record<Own, string>;
  const ids = { aff: randomUUID(), camp: randomUUID(), partner: randomUUID(), slow: randomUUID(), slowSchool: randomUUID() };
  const name = (k: Own | 'slow') => `Explain ${k} offer`;
  /** Each offer's one rule that the person (TX, born 1995, associate degree) fails, once the caps are used and the duplicate sold. */
  const rules: Record<Own, Record<string, unknown>> = {
    ok: {},
    state: { eligibility: { states: ['CA', 'NV'] } },
    age: { eligibility: { min_age: 40 } },
    edu: { eligibility: { education_levels: ['bachelor', 'master'] } },
    prog: { programs: [{ value: 'msn', label: 'MSN', eligibility: { education_levels: ['master'] } }] },
    day: { caps: [{ period: 'day', limit: 1, timezone: 'America/Chicago' }] },
    total: { caps: [{ period: 'total', limit: 1 }] },
    dup: { duplicate_window_days: 30 },
    excl: { offer_type: 'true_exclusive', priority: 9 },
  };
  let sandbox: RunningApp;
  let client: SubmitClient;
  const lead = person();
  const other = person({ state: 'CA' });
  let searches: { other: string; first: string; explained: string };
  let refusedId: string;

  /** The catalog; `okStates` narrows the ok offer's states (the proposal simulated). */
  const catalog = (okStates?: string[]) => ({
    affiliates: [{ id: ids.aff, name: 'Explain E2E Affiliate', status: 'active' }],
    schools: [
      ...RULES.map((k) => ({ id: schoolIds[k], name: `Explain ${k} school`, logo_url: null })),
      { id: ids.slowSchool, name: 'Explain slow school', logo_url: null },
    ],
    // The partner answers after 5 s; partner-adapter gives up at 1 s.
    partners: [
      {
        id: ids.partner,
        name: 'Explain slow partner',
        adapter: 'sandbox',
        base_url: `${sandbox.url}/partners/explain${suffix}?delay_ms=5000&match=all`,
        timeout_ms: 1000,
      },
    ],
    offers: [
      ...RULES.map((k) => {
        const extra = k === 'ok' && okStates ? { eligibility: { states: okStates } } : rules[k];
        return ownOffer(offerIds[k], schoolIds[k], name(k), `${sandbox.url}/schools/explain${suffix}/leads?outcome=accept`, extra);
      }),
      partnerOffer(ids.slow, ids.slowSchool, name('slow'), ids.partner, `ext-${ids.slow.slice(0, 8)}`),
    ],
    campaigns: [
      campaign(ids.camp, ids.aff, 'Explain E2E', [
        ...RULES.map((k) => ({ offer_id: offerIds[k], payout: 10 })),
        { offer_id: ids.slow, payout: 4 },
      ]),
    ],
  });

  type Search = Awaited<ReturnType<SubmitClient['searchDone']>>;
  const search = (who: Person) => client.searchDone(ids.camp, who);
  const submit = (s: Search, k: Own) =>
    client.submit(ids.camp, s.searchId, s.results.get(offerIds[k]).svc_result_id, { program_id: 'gen' });
  /** A real sale: the submit accepted by the sandbox school (waited for when the answer is PENDING). */
  async function sell(s: Search, k: Own): Promise<void> {
    const res = await submit(s, k);
    const final = res.body.code === 'PENDING' ? (await client.finalStatus(res.body.svc_lead_id)).body : res.body;
    expect([k, final.code]).toEqual([k, 'ACCEPTED']);
  }

  beforeAll(async () => {
    sandbox = await startApp('sandbox', env, 'live');
    applyCatalog(catalog(), env);
    const key = issueKey(ids.aff, env).key;
    await Promise.all([
      startApp('checks', env),
      startApp('partner-adapter', env),
      startApp('search-orchestrator', env),
      startApp('delivery', env),
    ]);
    client = new SubmitClient((await startApp('gateway', env)).url, key, ids.aff);

    // Someone else (CA) uses up the day and total caps, while the person is sold to the dup offer.
    const useCaps = async () => {
      const s = await search(other);
      await sell(s, 'day');
      await sell(s, 'total');
      return s;
    };
    const soldToPerson = async () => {
      const s = await search(lead);
      await sell(s, 'dup');
      return s;
    };
    const [otherSearch, first] = await Promise.all([useCaps(), soldToPerson()]);
    // The person's next search, then its lead sold true_exclusive: another result of it is refused.
    const s = await search(lead);
    expect([...s.results.keys()].sort()).toEqual([offerIds.ok, offerIds.excl].sort());
    await sell(s, 'excl');
    const refused = await submit(s, 'ok');
    expect([refused.body.code, refused.body.reason]).toEqual(['NOT_ELIGIBLE', 'Lead already sold exclusively']);
    refusedId = refused.body.svc_lead_id;
    searches = { other: otherSearch.searchId, first: first.searchId, explained: s.searchId };
  });

  afterAll(async () => {
    await stopAppsAndTopology(env);
  });

  const soldOut = `sold out: the lead was sold true_exclusive to ${name('excl')} (${offerIds.excl}), which ends its other sales`;

  it('lead explain <search id> names the deciding rule of each offer not shown and of the refused submit, with their facts', () => {
    const run = runOps(['lead', 'explain', searches.explained], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out).not.toContain(lead.personal.email);
    const block = (k: Own | 'slow') => {
      const start = out.indexOf(`\n  ${name(k)} (${k === 'slow' ? ids.slow : offerIds[k]})`);
      expect([k, start >= 0]).toEqual([k, true]);
      return out.slice(start + 1, out.indexOf('\n\n', start + 1));
    };
    expect(block('ok')).toMatch(/^[^\n]+, own: shown, rank \d+ \(result [0-9a-f-]+\)\n/);
    expect(block('excl')).toMatch(/: shown, rank \d+/);
    expect(block('state')).toMatch(
      /not shown: not_eligible \(states\)\n {4}rule +state TX not in \[CA, NV\]\n {4}facts +lead state = TX \(stored\); offer states = \[CA, NV\] \(now\)/,
    );
    expect(block('age')).toMatch(
      /not shown: not_eligible \(min_age\)\n {4}rule +age (\d+) below min_age 40\n {4}facts +lead age = \1 \(stored\); offer min_age = 40 \(now\)/,
    );
    expect(block('edu')).toMatch(
      /not shown: not_eligible \(education_levels\)\n {4}rule +education level associate not in \[bachelor, master\]\n {4}facts +lead education level = associate \(stored\); offer education_levels = \[bachelor, master\] \(now\)/,
    );
    expect(block('prog')).toMatch(
      /not shown: no_eligible_program \(programs\.msn\.education_levels\)\n {4}rule +no program qualifies: msn: education level associate not in \[master\]/,
    );
    expect(block('prog')).toMatch(/^ {4}program +msn \(MSN\): education level associate not in \[master\]$/m);
    expect(block('day')).toMatch(
      /not shown: cap_reached\n {4}rule +day cap 1 of 1 reached \(America\/Chicago\)\n {4}facts +day cap limit = 1 \(now\); sales counted in the period from \S+ = 1 \(now\)/,
    );
    expect(block('total')).toMatch(/not shown: cap_reached\n {4}rule +total cap 1 of 1 reached\n {4}facts +total cap limit = 1 \(now\)/);
    expect(block('dup')).toMatch(
      /not shown: duplicate\n {4}rule +sold to this person 0 days ago \(\S+Z\); window 30 days\n {4}facts +last sale of this offer to the person = \S+Z \(now\); offer duplicate_window_days = 30 \(now\)/,
    );
    expect(block('slow')).toMatch(
      /, partner: not shown: partner_timeout[^\n]*\n {4}rule +partner Explain slow partner timed out after [\d,]+ ms \(timeout_ms 1,000 now\)\n {4}facts +partner call status = timeout \(stored\)/,
    );
    expect(out).not.toMatch(/^ {4}note /m);

    const refused = out.slice(out.indexOf(`\n  Submit ${refusedId}\n`));
    expect(refused).toMatch(/^ {4}decision +NOT_ELIGIBLE \(rejected\): Lead already sold exclusively, decided by service at \S+$/m);
    expect(refused).toContain(`\n    rule      ${soldOut}\n`);
  });

  it('lead explain <submit id> --json: per offer the decision, the rule and its facts; the refused submit’s rule', () => {
    const run = runOps(['lead', 'explain', refusedId, '--json'], env);
    expect(run.code).toBe(0);
    const x = JSON.parse(run.stdout);
    expect(x.asked).toEqual({ id: refusedId, is: 'submit' });
    expect(x.search).toMatchObject({ id: searches.explained, campaign: { id: ids.camp, name: 'Explain E2E' }, shown: 2 });
    const byId = new Map(x.search.offers.map((o: { offer: { id: string } }) => [o.offer.id, o]));
    expect(x.search.offers).toHaveLength(RULES.length + 1);
    for (const o of x.search.offers) expect([o.offer.name, o.agrees]).toEqual([o.offer.name, true]);
    const offer = (k: Own | 'slow') => byId.get(k === 'slow' ? ids.slow : offerIds[k]);
    const fact = (n: string, value: unknown, source = 'now') => expect.arrayContaining([{ name: n, value, source }]);

    expect(offer('ok')).toMatchObject({ stored: { shown: true }, verdict: { shown: true }, rule: null });
    expect(offer('state')).toMatchObject({
      stored: { shown: false, reason: 'not_eligible', detail: 'states' },
      verdict: { shown: false, reason: 'not_eligible', detail: 'states' },
      rule: 'state TX not in [CA, NV]',
      facts: [
        { name: 'lead state', value: 'TX', source: 'stored' },
        { name: 'offer states', value: ['CA', 'NV'], source: 'now' },
      ],
    });
    expect(offer('age')).toMatchObject({
      verdict: { reason: 'not_eligible', detail: 'min_age' },
      rule: expect.stringMatching(/^age \d+ below min_age 40$/),
      facts: fact('offer min_age', 40),
    });
    expect(offer('edu')).toMatchObject({
      verdict: { reason: 'not_eligible', detail: 'education_levels' },
      rule: 'education level associate not in [bachelor, master]',
      facts: [
        { name: 'lead education level', value: 'associate', source: 'stored' },
        { name: 'offer education_levels', value: ['bachelor', 'master'], source: 'now' },
      ],
    });
    expect(offer('prog')).toMatchObject({
      verdict: { reason: 'no_eligible_program' },
      rule: 'no program qualifies: msn: education level associate not in [master]',
      programs: [
        {
          value: 'msn',
          eligible: false,
          rule: 'education level associate not in [master]',
          facts: fact('program msn education_levels', ['master']),
        },
      ],
    });
    expect(offer('day')).toMatchObject({
      verdict: { reason: 'cap_reached' },
      rule: 'day cap 1 of 1 reached (America/Chicago)',
      facts: fact('day cap limit', 1),
    });
    expect(offer('total')).toMatchObject({
      verdict: { reason: 'cap_reached' },
      rule: 'total cap 1 of 1 reached',
      facts: fact('total cap limit', 1),
    });
    expect(offer('dup')).toMatchObject({
      verdict: { reason: 'duplicate' },
      rule: expect.stringMatching(/^sold to this person 0 days ago \(\S+Z\); window 30 days$/),
      facts: fact('offer duplicate_window_days', 30),
    });
    expect(offer('slow')).toMatchObject({
      source: 'partner',
      stored: { reason: 'partner_timeout' },
      verdict: { reason: 'partner_timeout' },
      rule: expect.stringMatching(/^partner Explain slow partner timed out after [\d,]+ ms \(timeout_ms 1,000 now\)$/),
      facts: expect.arrayContaining([
        { name: 'partner call status', value: 'timeout', source: 'stored' },
        { name: 'partner timeout_ms', value: 1000, source: 'now' },
      ]),
    });

    const refused = x.submits.find((s: { id: string }) => s.id === refusedId);
    expect(refused).toMatchObject({
      offer: { id: offerIds.ok },
      decision: { status: 'rejected', code: 'NOT_ELIGIBLE', reason: 'Lead already sold exclusively', decided_by: 'service' },
      verdict: { code: 'NOT_ELIGIBLE', reason: 'Lead already sold exclusively' },
      agrees: true,
      rule: soldOut,
      facts: fact('the sale that decided', `${name('excl')} (${offerIds.excl}) (true_exclusive)`),
    });
  });

  it('catalog simulate --json of a catalog that narrows one offer’s states reports exactly the searches that lose it', () => {
    // The ok offer, shown on all three searches, narrowed to CA: the person's two TX searches lose it, the CA one keeps it.
    const run = runOps(['catalog', 'simulate', writeCatalogFile(catalog(['CA'])), '--last', '10', '--json'], env);
    expect(run.code).toBe(0);
    const sim = JSON.parse(run.stdout);
    const losing = [searches.first, searches.explained].sort();
    expect(sim).toMatchObject({
      window: { last: 10 },
      campaigns: [{ id: ids.camp }],
      searches: 3,
      searches_changed: 2,
      partner_unknown: 0,
    });
    expect(sim.rules).toEqual([{ rule: 'not_eligible (states)', lost: 2, gained: 0 }]);
    const ok = sim.offers.find((o: { offer: { id: string } }) => o.offer.id === offerIds.ok);
    expect(ok).toMatchObject({ shown_before: 3, shown_after: 1, lost: 2, gained: 0, ids_truncated: false, gained_search_ids: [] });
    expect([...ok.lost_search_ids].sort()).toEqual(losing);
    expect(ok.lost_search_ids).not.toContain(searches.other);
    for (const o of sim.offers.filter((o: { offer: { id: string } }) => o.offer.id !== offerIds.ok))
      expect([o.offer.name, o.lost, o.gained]).toEqual([o.offer.name, 0, 0]);
  });
});
