import { randomUUID } from 'node:crypto';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey, runOps } from '../support/ops';
import { person, SubmitClient } from '../support/submit-flow';
import { testEnv, uniqueSuffix } from '../support/test-env';
import { campaign, catalogOffer, partnerOffer } from '../support/catalog-builder';

/**
 * The operator's view of a real lead: a search and two submits through the
 * running gateway, search-orchestrator, checks, partner-adapter, delivery and
 * the sandbox (a school that accepts, one that refuses quoting the person, a
 * partner network), then the built CLI's `lead show` and `report` on them.
 */
describe('ops lead show and report on a real lead (e2e)', () => {
  const suffix = uniqueSuffix();
  const env = testEnv(suffix);
  const ids = {
    aff: randomUUID(),
    sAcc: randomUUID(),
    sRej: randomUUID(),
    sPar: randomUUID(),
    oAcc: randomUUID(),
    oRej: randomUUID(),
    partner: randomUUID(),
    pOffer: randomUUID(),
    camp: randomUUID(),
  };
  const school = (name: string) => `ops${suffix}-${name}`;
  let sandbox: RunningApp;
  let client: SubmitClient;
  const lead = person();
  let started: Date;
  let searchId: string;
  let acceptedId: string;
  let rejectedId: string;

  const own = (offerId: string, schoolId: string, name: string, outcome: string) =>
    catalogOffer(offerId, schoolId, name, {
      source: 'own',
      priority: 5,
      price: 45,
      tcpa_text: `I agree that ${name} may contact me.`,
      programs: [{ value: 'gen', label: 'General Studies' }],
      delivery: {
        adapter: 'sandbox',
        url: `${sandbox.url}/schools/${school(name.toLowerCase().replace(/\W+/g, '-'))}/leads?outcome=${outcome}`,
        timeout_ms: 6000,
      },
    });

  beforeAll(async () => {
    sandbox = await startApp('sandbox', env, 'live');
    // The refusing school quotes the person's name and email back: the operator must see them masked.
    const rejectReason = encodeURIComponent(
      `Already enrolled: ${lead.personal.first_name} ${lead.personal.last_name} ${lead.personal.email}`,
    );
    applyCatalog(
      {
        affiliates: [{ id: ids.aff, name: 'Ops E2E Affiliate', status: 'active' }],
        schools: [
          { id: ids.sAcc, name: 'Accepting U', logo_url: null },
          { id: ids.sRej, name: 'Refusing College', logo_url: null },
          { id: ids.sPar, name: 'Partner School', logo_url: null },
        ],
        partners: [
          {
            id: ids.partner,
            name: 'Ops partner',
            adapter: 'sandbox',
            base_url: `${sandbox.url}/partners/${school('partner')}?match=all&outcome=accept`,
            timeout_ms: 5000,
          },
        ],
        offers: [
          own(ids.oAcc, ids.sAcc, 'Accepting Offer', 'accept'),
          own(ids.oRej, ids.sRej, 'Refusing Offer', `reject&reason=${rejectReason}`),
          partnerOffer(ids.pOffer, ids.sPar, 'Partner offer', ids.partner, `ext-${ids.pOffer.slice(0, 8)}`, { result_ttl_seconds: 600 }),
        ],
        campaigns: [
          campaign(ids.camp, ids.aff, 'Ops E2E', [
            { offer_id: ids.oAcc, payout: 17.5 },
            { offer_id: ids.oRej, payout: 9 },
            { offer_id: ids.pOffer, payout: 4 },
          ]),
        ],
      },
      env,
    );
    const key = issueKey(ids.aff, env).key;
    await Promise.all([
      startApp('checks', env),
      startApp('partner-adapter', env),
      startApp('search-orchestrator', env),
      startApp('delivery', env),
    ]);
    const gateway = await startApp('gateway', env);
    client = new SubmitClient(gateway.url, key, ids.aff);

    started = new Date(Date.now() - 1000);
    const s = await client.searchDone(ids.camp, lead);
    searchId = s.searchId;
    const accepted = await client.submit(ids.camp, searchId, s.results.get(ids.oAcc).svc_result_id, { program_id: 'gen' });
    expect(accepted.body).toMatchObject({ code: 'ACCEPTED', payout: 17.5 });
    acceptedId = accepted.body.svc_lead_id;
    const rejected = await client.submit(ids.camp, searchId, s.results.get(ids.oRej).svc_result_id, { program_id: 'gen' });
    expect(rejected.body).toMatchObject({ code: 'BUYER_REJECTED' });
    rejectedId = rejected.body.svc_lead_id;
  });

  afterAll(async () => {
    await stopAppsAndTopology(env);
  });

  const noContactData = (output: string) => {
    const p = lead.personal;
    for (const raw of [p.email, p.phone, p.last_name, p.date_of_birth, lead.address.address_line_1])
      expect(output.toLowerCase()).not.toContain(raw.toLowerCase());
    expect(output).not.toMatch(new RegExp(`\\b${p.first_name}\\b`, 'i'));
  };

  it('lead show --reveal opens the contact data for an operator who asks, and each reveal is audited', () => {
    const run = runOps(['lead', 'show', acceptedId, '--reveal', '--reason', 'e2e identity check', '--by', 'ops-e2e'], env);
    expect(run.code).toBe(0);
    for (const value of [lead.personal.email, lead.personal.phone, lead.personal.last_name]) expect(run.stdout).toContain(value);
    expect(run.stdout).toContain('73.12.44.10');
    const audit = runOps(['lead', 'reveals', acceptedId], env);
    expect(audit.code).toBe(0);
    expect(audit.stdout).toContain('ops-e2e');
    expect(audit.stdout).toContain('e2e identity check');
  });

  it('lead show <submit id> tells the story: search, results, delivery attempts and decisions, masked', () => {
    const run = runOps(['lead', 'show', acceptedId], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    noContactData(run.stdout);
    const out = run.stdout;
    expect(out).toMatch(new RegExp(`^Lead ${acceptedId}: a result submit in lead group ${searchId}$`, 'm'));
    expect(out).toMatch(new RegExp(`^  campaign +Ops E2E \\(${ids.camp}\\)$`, 'm'));
    // The consumer IP and the contact fields are sealed: the story shows the readable part and says so.
    expect(out).toMatch(/^ {2}tracking +subid=e2e$/m);
    expect(out).toMatch(/^Lead \(contact data sealed: --reveal opens it, audited\)$/m);
    expect(out).toMatch(/^ {2}address\.state +TX$/m);
    expect(out).toMatch(/^Results shown \(3\)$/m);
    expect(out).toMatch(new RegExp(`^  Ops partner \\(${ids.partner}\\) +answered `, 'm'));

    const [acc, rej] = out.split(/^ {2}Submit /m).slice(1);
    expect(acc).toMatch(new RegExp(`^${acceptedId}  <- the id asked for`));
    expect(acc).toMatch(/^ {4}decision +ACCEPTED \(accepted\): Lead accepted$/m);
    expect(acc).toMatch(/^ {4}decided +\S+Z by buyer$/m);
    expect(acc).toMatch(/^ {4}payout +17\.50$/m);
    expect(acc).toMatch(/^ {4}consent +yes at \S+ from 73\.12\.44\.10; button "Request info"$/m);
    expect(acc).toMatch(/^ {4}sale +accepted, shared, payout 17\.50, price 45\.00/m);
    expect(acc).toMatch(/^ {4}dedupe keys +email, name_zip_dob, phone$/m);
    expect(acc).toMatch(/^ {6}1 +\S+Z +\S+Z +\d+ +accepted +200 +\d+/m);

    expect(rej).toMatch(new RegExp(`^${rejectedId}\\n`));
    expect(rej).toMatch(/^ {4}decision +BUYER_REJECTED \(rejected\): Rejected - Client$/m);
    expect(rej).toMatch(/^ {4}sale +released, shared, payout 9\.00/m);
    // The school quoted the person back: its words were stored with their contact values masked.
    expect(rej).toMatch(/^ {6}1 +\S+Z +\S+Z +\d+ +rejected +200 +\d+ +Already enrolled: \[erased\] \[erased\] \[erased\]$/m);
  });

  it('lead show <search id> --json: the same facts, machine-readable', () => {
    const run = runOps(['lead', 'show', searchId, '--json'], env);
    expect(run.code).toBe(0);
    noContactData(run.stdout);
    const story = JSON.parse(run.stdout);
    expect(story.asked).toEqual({ id: searchId, is: 'search' });
    expect(story.search).toMatchObject({ id: searchId, campaign: { id: ids.camp, name: 'Ops E2E' }, is_test: false, accepted_count: 1 });
    expect(story.results.map((r: { offer: { id: string } }) => r.offer.id).sort()).toEqual([ids.oAcc, ids.oRej, ids.pOffer].sort());
    expect(story.partner_calls).toEqual([
      expect.objectContaining({ partner: { id: ids.partner, name: 'Ops partner' }, status: 'answered', result_count: 1 }),
    ]);
    const byId = new Map(story.submits.map((s: { id: string }) => [s.id, s]));
    expect(byId.get(acceptedId)).toMatchObject({
      decision: { status: 'accepted', code: 'ACCEPTED', decided_by: 'buyer', payout: 17.5 },
      delivery_attempts: [
        { attempt: 1, outcome: 'accepted', http_status: 200, finished_at: expect.any(String), duration_ms: expect.any(Number) },
      ],
      sale: { status: 'accepted', payout: 17.5, price: 45 },
    });
    expect(byId.get(rejectedId)).toMatchObject({
      decision: { status: 'rejected', code: 'BUYER_REJECTED', reason: 'Rejected - Client', decided_by: 'buyer' },
      delivery_attempts: [{ attempt: 1, outcome: 'rejected', http_status: 200 }],
      sale: { status: 'released' },
    });
  });

  it('report counts the same traffic for the campaign', () => {
    const run = runOps(
      [
        'report',
        '--from',
        started.toISOString(),
        '--to',
        new Date(Date.now() + 1000).toISOString(),
        '--by',
        'campaign',
        '--affiliate',
        ids.aff,
        '--json',
      ],
      env,
    );
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.groups).toEqual([
      expect.objectContaining({
        id: ids.camp,
        name: 'Ops E2E',
        searches: 1,
        results_shown: 3,
        submits: 2,
        accepted: 1,
        payouts: 17.5,
        submits_by_code: expect.objectContaining({ ACCEPTED: 1, BUYER_REJECTED: 1, PENDING: 0 }),
      }),
    ]);
  });
});
