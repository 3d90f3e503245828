import { createHash, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { FormField } from '../../libs/contracts/src';
import { exchangeApiKey } from '../../apps/sandbox/src/exchange/exchange-protocol';
import { partnerResult } from '../../apps/sandbox/src/partners/partner-results';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { exchangePartner } from '../support/exchange-partner';
import { call } from '../support/http';
import { applyCatalog, issueKey } from '../support/ops';
import { person, SubmitClient } from '../support/submit-flow';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../support/test-env';
import { campaign, partnerOffer } from '../support/catalog-builder';

/**
 * A partner network connected by configuration alone: json partners mapped
 * onto the sandbox's exchange protocol (PascalCase, programs nested in each
 * match and questions in each program, its own decision vocabulary, an API
 * key), end to end over HTTP through the gateway, search-orchestrator,
 * checks, partner-adapter and delivery. Its results appear on later polls as
 * the mapping reads them; a submit reaches it through the mapped call and
 * its answer is decided by the response rules into the contract's
 * standardized reasons; a wrong API key is an `error` answer, not a crash.
 */
describe('json partner adapter (e2e)', () => {
  const suffix = uniqueSuffix();
  const exchange = `json${suffix}`;
  const env = testEnv(suffix);
  const keys = { E2E_EXCHANGE_KEY: exchangeApiKey(exchange), E2E_EXCHANGE_WRONG_KEY: 'not-the-key' };
  const id = () => randomUUID();
  const ids = {
    aff: id(),
    campaign: id(),
    pAccept: id(),
    pReject: id(),
    pDuplicate: id(),
    pWrongKey: id(),
    oAccept: id(),
    oReject: id(),
    oDuplicate: id(),
    oWrongKey: id(),
    sAccept: id(),
    sReject: id(),
    sDuplicate: id(),
    sWrongKey: id(),
  };
  /** A campaign code whose sandbox content has several programs and a program-specific select question. */
  const code = [...Array(200).keys()]
    .map((i) => `campus-${i}`)
    .find((c) => {
      const r = partnerResult(exchange, 's', c);
      return r.programs.length >= 2 && r.form_fields.some((f) => f.required_when) && r.form_fields.some((f) => f.required);
    })!;
  const PARTNER_REASON = 'Secret partner text about Ada';
  let sandbox: RunningApp;
  let client: SubmitClient;
  let db: Client;

  const partner = (partnerId: string, name: string, query: string, keyVariable = 'E2E_EXCHANGE_KEY') =>
    exchangePartner(partnerId, name, `${sandbox.url}/exchange/${exchange}?${query}`, keyVariable);
  const exchangeOffer = (offerId: string, partnerId: string, schoolId: string, externalId: string) =>
    partnerOffer(offerId, schoolId, `Exchange offer ${externalId}`, partnerId, externalId, { result_ttl_seconds: 600 });

  beforeAll(async () => {
    sandbox = await startApp('sandbox', env, 'live');
    applyCatalog(
      {
        affiliates: [{ id: ids.aff, name: 'Json partner affiliate', status: 'active' }],
        schools: ['sAccept', 'sReject', 'sDuplicate', 'sWrongKey'].map((k) => ({
          id: ids[k as keyof typeof ids],
          name: `Exchange school ${k}`,
        })),
        partners: [
          partner(ids.pAccept, 'Exchange accepting', 'delay_ms=300&outcome=accept'),
          partner(ids.pReject, 'Exchange declining', `outcome=reject&reason=${encodeURIComponent(PARTNER_REASON)}`),
          partner(ids.pDuplicate, 'Exchange on file', 'outcome=duplicate'),
          partner(ids.pWrongKey, 'Exchange wrong key', 'outcome=accept', 'E2E_EXCHANGE_WRONG_KEY'),
        ],
        offers: [
          exchangeOffer(ids.oAccept, ids.pAccept, ids.sAccept, code),
          exchangeOffer(ids.oReject, ids.pReject, ids.sReject, 'campus-reject'),
          exchangeOffer(ids.oDuplicate, ids.pDuplicate, ids.sDuplicate, 'campus-dup'),
          exchangeOffer(ids.oWrongKey, ids.pWrongKey, ids.sWrongKey, 'campus-locked'),
        ],
        campaigns: [
          campaign(ids.campaign, ids.aff, 'Json partners', [
            { offer_id: ids.oAccept, payout: 12.5 },
            { offer_id: ids.oReject, payout: 9 },
            { offer_id: ids.oDuplicate, payout: 9 },
            { offer_id: ids.oWrongKey, payout: 9 },
          ]),
        ],
      },
      env,
    );
    const roomy = ['--limit', 'search=6000/1000', '--limit', 'results=6000/1000', '--limit', 'leads=6000/1000'];
    client = new SubmitClient('', issueKey(ids.aff, env, roomy).key, ids.aff);
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    await Promise.all([
      startApp('checks', env),
      startApp('partner-adapter', { ...env, ...keys }),
      startApp('search-orchestrator', env),
      startApp('delivery', env),
    ]);
    client = new SubmitClient((await startApp('gateway', env)).url, client.key, ids.aff);
  });

  afterAll(async () => {
    await stopAppsAndTopology(env);
    await db?.end();
  });

  /** The answers a submit needs for `program`: every required question and those required for it, each with an allowed value. */
  const answersFor = (fields: FormField[], program: string) =>
    Object.fromEntries(
      fields
        .filter((f) => f.required || f.required_when?.program_ids.includes(program))
        .map((f) => [f.name, f.options ? f.options[0].value : 'yes']),
    );
  const received = async () => {
    const res = await fetch(`${sandbox.url}/exchange/${exchange}/received`);
    return (await res.json()) as { leads: Array<{ body: any; headers: Record<string, string> }>; searches: Array<{ body: any }> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON of any shape (what the partner received, the answer's result entries); each test reads the fields it asserts on.
  };

  let search: { searchId: string; body: any; results: Map<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON of any shape (what the partner received, the answer's result entries); each test reads the fields it asserts on.
  const lead = person();

  it('shows the partner results on later polls, with programs and questions mapped as configured', async () => {
    const first = await client.search(ids.campaign, lead);
    expect(first.status).toBe(200);
    expect([first.body.processing_done, first.body.offers]).toEqual([false, []]);
    let body = first.body;
    for (let i = 0; !body.processing_done && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 200));
      body = (await call(client.gatewayUrl, 'GET', `/api/v1/engine/results/${first.body.svc_lead_id}`, { key: client.key })).body;
    }
    search = { searchId: body.svc_lead_id, body, results: new Map(body.offers.map((o: { offer: { id: string } }) => [o.offer.id, o])) };
    expect(body.processing_done).toBe(true);
    expect([...search.results.keys()].sort()).toEqual([ids.oAccept, ids.oReject, ids.oDuplicate].sort());

    // The exchange got the search in its own shape (and the API key: else it answers 401): what it needs to quote, no contact data.
    const asked = (await received()).searches.map((s) => s.body).find((b) => b.RequestId === search.searchId && b.Campaigns.includes(code));
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(asked).toEqual({
      RequestId: search.searchId,
      Campaigns: [code],
      Applicant: {
        State: 'TX',
        PostalCode: '75001',
        AgeBand: expect.stringMatching(/^\d\d-\d\d$/),
        EducationLevel: 'associate',
        GraduationYear: '2013',
        EmailSha256: sha256(lead.personal.email),
        PhoneSha256: sha256(lead.personal.phone),
      },
      Source: { SubId: 'e2e' },
      TestMode: false,
    });

    // What the sandbox protocol would show for that offer, questions moved up from the programs: required under every
    // program is required; under some programs, required_when those.
    const expected = partnerResult(exchange, search.searchId, code);
    const entry = search.results.get(ids.oAccept);
    expect(entry.programs).toEqual(expected.programs.map((p) => ({ ...p, payout: 12.5 })));
    const offered = expected.programs.map((p) => p.value);
    const byName = (fields: FormField[]) => [...fields].sort((x, y) => x.name.localeCompare(y.name));
    expect(byName(entry.form_fields)).toEqual(
      byName(
        expected.form_fields.map((f) => {
          const requiredBy = f.required_when ? f.required_when.program_ids.filter((p) => offered.includes(p)) : f.required ? offered : [];
          const always = requiredBy.length === offered.length;
          return {
            name: f.name,
            label: f.label,
            type: f.type,
            required: always,
            ...(!always && requiredBy.length > 0 ? { required_when: { program_ids: requiredBy } } : {}),
            ...(f.options ? { options: f.options } : {}),
          };
        }),
      ),
    );
    expect(entry.form_fields.some((f: FormField) => f.required_when)).toBe(true);
    expect(entry.offer.tcpa_text).toBe(expected.tcpa_text);
    // The caller's payout, never what the exchange says it pays.
    expect(entry.payout).toBe(12.5);
    expect(JSON.stringify(search.body)).not.toMatch(/38\.5|Payout/);
  });

  it('a wrong API key is an error answer for that partner alone: its offer is not shown and the search still ends', async () => {
    expect(search.results.has(ids.oWrongKey)).toBe(false);
    const { rows } = await db.query(`SELECT status, detail FROM search_partner_calls WHERE search_id = $1 AND partner_id = $2`, [
      search.searchId,
      ids.pWrongKey,
    ]);
    expect(rows).toEqual([{ status: 'error', detail: 'PARTNER_HTTP_ERROR: HTTP 401' }]);
  });

  it("delivers a submit through the mapped call, answers and consent in the partner's names, and reads Approved as accepted", async () => {
    const entry = search.results.get(ids.oAccept);
    const program = entry.form_fields.find((f: FormField) => f.required_when)!.required_when!.program_ids[0];
    const answers = answersFor(entry.form_fields, program);
    const res = await client.submit(ids.campaign, search.searchId, entry.svc_result_id, { program_id: program, ...answers });
    expect(res.body).toEqual(expect.objectContaining({ code: 'ACCEPTED', status: 'accepted', reason: 'Lead accepted', payout: 12.5 }));
    const application = (await received()).leads.find((l) => l.headers['idempotency-key'] === res.body.svc_lead_id)!;
    expect(application.body).toEqual({
      MatchToken: expect.stringMatching(/^mt_[0-9a-f]{24}$/),
      CampaignCode: code,
      ProgramCode: program,
      Applicant: {
        FirstName: 'Ada',
        LastName: lead.personal.last_name,
        Email: lead.personal.email,
        Phone: lead.personal.phone,
        PostalCode: '75001',
      },
      Responses: answers,
      Consent: {
        Given: true,
        Text: entry.offer.tcpa_text,
        ButtonLabel: 'Request info',
        Timestamp: expect.any(String),
        IpAddress: '73.12.44.10',
      },
      ExternalRef: res.body.svc_lead_id,
    });
  });

  it("decides the exchange's 409 AlreadyOnFile and Declined by the response rules, with the contract's standardized reasons", async () => {
    const submitTo = (offerId: string) => {
      const entry = search.results.get(offerId);
      const program = entry.programs[0].value;
      return client.submit(ids.campaign, search.searchId, entry.svc_result_id, {
        program_id: program,
        ...answersFor(entry.form_fields, program),
      });
    };
    const [duplicate, rejected] = await Promise.all([submitTo(ids.oDuplicate), submitTo(ids.oReject)]);
    expect(duplicate.body).toEqual(
      expect.objectContaining({ code: 'DUPLICATE', status: 'rejected', reason: 'Duplicate - Client', payout: 0 }),
    );
    expect(rejected.body).toEqual(
      expect.objectContaining({ code: 'BUYER_REJECTED', status: 'rejected', reason: 'Rejected - Client', payout: 0 }),
    );
    // The partner's own words are kept for operators, never answered.
    expect(JSON.stringify(rejected.body)).not.toContain(PARTNER_REASON);
    const detail = async (leadId: string) =>
      (await db.query(`SELECT outcome, detail FROM delivery_attempts WHERE lead_id = $1`, [leadId])).rows;
    // Kept for operators, with the person's contact values (here their first name) masked.
    expect(await detail(rejected.body.svc_lead_id)).toEqual([{ outcome: 'rejected', detail: 'Secret partner text about [erased]' }]);
    expect(await detail(duplicate.body.svc_lead_id)).toEqual([{ outcome: 'duplicate', detail: 'Applicant already on file' }]);
  });
});
