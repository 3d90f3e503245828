import { createHash, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { loadConfig } from '../../libs/config/src';
import { MESSAGE_TYPES } from '../../libs/contracts/src';
import { topologyFor } from '../../libs/messaging/src/topology';
import { exchangeApiKey } from '../../apps/sandbox/src/exchange/exchange-protocol';
import { HOSTILE_TEXT } from '../../apps/sandbox/src/partners/partner-results';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { campaign, partnerOffer } from '../support/catalog-builder';
import { exchangePartner } from '../support/exchange-partner';
import { scrape, total } from '../support/metrics';
import { tapMessages, type CarriedMessage } from '../support/message-tap';
import { issueKey, runOps, writeCatalogFile } from '../support/ops';
import { person, SubmitClient } from '../support/submit-flow';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../support/test-env';

/**
 * What partner networks receive, and what they may send back, behind the
 * whole stack: a search asks each partner with its view of the lead (no
 * contact data unless the catalog names it for that partner), the partner
 * chosen gets the whole lead on submit, markup in a partner's display text
 * never reaches an answer or storage, and a credential header travels as its
 * `${env:NAME}` reference only. The sandbox records what each partner
 * received; a queue bound to every message type records what went through
 * the broker.
 */
describe('what partners receive and send (e2e)', () => {
  const suffix = uniqueSuffix();
  const env = testEnv(suffix);
  const net = (role: string) => `${role}${suffix}`;
  const exchange = net('keyed');
  const KEY_VARIABLE = 'E2E_PARTNER_DATA_KEY';
  const secret = exchangeApiKey(exchange);
  const id = (): string => randomUUID();
  const ids = {
    aff: id(),
    plainCampaign: id(),
    contactCampaign: id(),
    plain: { partner: id(), offer: id(), school: id() },
    contact: { partner: id(), offer: id(), school: id() },
    keyed: { partner: id(), offer: id(), school: id() },
    tcpa: { partner: id(), offer: id(), school: id() },
    program: { partner: id(), offer: id(), school: id() },
    question: { partner: id(), offer: id(), school: id() },
    schoolName: { partner: id(), offer: id(), school: id() },
  };
  const MARKUPS = { tcpa: 'tcpa_text', program: 'program_label', question: 'question_label', schoolName: 'school_name' } as const;
  const CONTACT_FIELDS = ['lead.personal.first_name', 'lead.personal.email'];
  const DEFAULT_FIELDS = [
    'lead.personal.age_band',
    'lead.address.state',
    'lead.address.zip_code',
    'lead.education.education_level',
    'lead.education.high_school_graduation_year',
    'lead.hashed.email',
    'lead.hashed.phone',
  ];
  let sandbox: RunningApp;
  let adapter: RunningApp;
  let client: SubmitClient;
  let db: Client;
  let applied: { code: number; stdout: string; stderr: string };
  let tap: Awaited<ReturnType<typeof tapMessages>> | undefined;
  /** Every message published to the commands and events exchanges while the tests run: its type and raw body. */
  let carried: CarriedMessage[] = [];

  const sandboxPartner = (key: keyof typeof ids & string, query: string, extra: Record<string, unknown> = {}) => ({
    id: (ids[key] as { partner: string }).partner,
    name: `Data partner ${key}`,
    adapter: 'sandbox',
    base_url: `${sandbox.url}/partners/${net(key)}?${query}`,
    // The sandbox answers at once; the roomy timeout is for a loaded machine, where a call can take seconds (the search stays open 45 s).
    timeout_ms: 20_000,
    ...extra,
  });
  const offerOf = (key: keyof typeof MARKUPS | 'plain' | 'contact' | 'keyed') => {
    const k = ids[key];
    return partnerOffer(k.offer, k.school, `Data offer ${key}`, k.partner, `data-${key}-001`, { result_ttl_seconds: 600 });
  };

  beforeAll(async () => {
    sandbox = await startApp('sandbox', env, 'live');
    const markupKeys = Object.keys(MARKUPS) as Array<keyof typeof MARKUPS>;
    const catalog = {
      affiliates: [{ id: ids.aff, name: 'Partner data affiliate', status: 'active' }],
      schools: (['plain', 'contact', 'keyed', ...markupKeys] as const).map((k) => ({ id: ids[k].school, name: `Data school ${k}` })),
      partners: [
        sandboxPartner('plain', 'match=all&outcome=accept'),
        sandboxPartner('contact', 'match=all&outcome=accept', { search_fields: [...DEFAULT_FIELDS, ...CONTACT_FIELDS] }),
        exchangePartner(ids.keyed.partner, 'Data partner keyed', `${sandbox.url}/exchange/${exchange}?match=all`, KEY_VARIABLE),
        ...markupKeys.map((k) => sandboxPartner(k, `match=all&markup=${MARKUPS[k]}`)),
      ],
      offers: (['plain', 'contact', 'keyed', ...markupKeys] as const).map(offerOf),
      campaigns: [
        campaign(
          ids.plainCampaign,
          ids.aff,
          'Partners of the default fields',
          (['plain', 'keyed', ...markupKeys] as const).map((k) => ({ offer_id: ids[k].offer, payout: 10 })),
        ),
        campaign(ids.contactCampaign, ids.aff, 'A partner configured for contact data', [{ offer_id: ids.contact.offer, payout: 10 }]),
      ],
    };
    applied = runOps(['catalog', 'apply', writeCatalogFile(catalog)], env);
    if (applied.code !== 0) throw new Error(`catalog apply failed: ${applied.stderr}`);
    const roomy = ['--limit', 'search=6000/1000', '--limit', 'results=6000/1000', '--limit', 'leads=6000/1000'];
    const key = issueKey(ids.aff, env, roomy).key;
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    [adapter] = await Promise.all([
      startApp('partner-adapter', { ...env, [KEY_VARIABLE]: secret }),
      startApp('checks', env),
      startApp('search-orchestrator', env),
      startApp('delivery', env),
    ]);
    client = new SubmitClient((await startApp('gateway', env)).url, key, ids.aff);

    // The apps declared the topology; a queue of our own sees every message published to its exchanges.
    tap = await tapMessages(topologyFor(loadConfig('gateway', env)));
    carried = tap.carried;
  });

  afterAll(async () => {
    await tap?.close();
    await stopAppsAndTopology(env);
    await db?.end();
  });

  type Receipt = { body: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON as a partner received it; each test reads the fields it asserts on.
  const receipts = async (path: string): Promise<{ searches: Receipt[]; leads: Receipt[] }> =>
    (await fetch(`${sandbox.url}/${path}/received`)).json() as Promise<{ searches: Receipt[]; leads: Receipt[] }>;
  const searchedBy = async (path: string, searchId: string, idKey = 'search_id') =>
    (await receipts(path)).searches.map((s) => s.body).filter((b) => b[idKey] === searchId);
  const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
  const contactValues = (lead: ReturnType<typeof person>) => [
    lead.personal.first_name,
    lead.personal.last_name,
    lead.personal.email,
    lead.personal.phone,
    lead.personal.date_of_birth,
    lead.address.address_line_1,
    '73.12.44.10',
  ];
  const requestsOf = (searchId: string) =>
    carried.filter((m) => m.type === MESSAGE_TYPES.PartnerSearchRequested && m.body.includes(searchId)).map((m) => m.body);

  const lead = person();
  let plain: Awaited<ReturnType<SubmitClient['searchDone']>>;

  it('a partner of the default search fields gets no contact data at search, and the request on the broker carries none', async () => {
    plain = await client.searchDone(ids.plainCampaign, lead);
    const [asked] = await searchedBy(`partners/${net('plain')}`, plain.searchId);
    expect(asked.lead).toEqual({
      personal: { age_band: '25-34' },
      address: { state: 'TX', zip_code: '75001' },
      education: { education_level: 'associate', high_school_graduation_year: '2013' },
      hashed: { email: sha256(lead.personal.email.toLowerCase()), phone: sha256(lead.personal.phone) },
    });
    expect(asked.tracking).toEqual({ subid: 'e2e' });
    // The json partner's mapped body holds what its field_map names of the same view.
    const [matched] = await searchedBy(`exchange/${exchange}`, plain.searchId, 'RequestId');
    expect(matched.Applicant).toEqual({
      State: 'TX',
      PostalCode: '75001',
      AgeBand: '25-34',
      EducationLevel: 'associate',
      GraduationYear: '2013',
      EmailSha256: sha256(lead.personal.email.toLowerCase()),
      PhoneSha256: sha256(lead.personal.phone),
    });
    const everything = JSON.stringify(await receipts(`partners/${net('plain')}`)) + JSON.stringify(matched);
    const requests = requestsOf(plain.searchId);
    expect(requests).toHaveLength(1);
    for (const value of contactValues(lead)) {
      expect(everything).not.toContain(value);
      expect(requests[0]).not.toContain(value);
    }
  });

  it('the partner chosen gets the whole lead on submit, and no other partner gets it', async () => {
    const entry = plain.results.get(ids.plain.offer);
    const answers = Object.fromEntries(
      (entry.form_fields as Array<{ name: string; required: boolean; options?: Array<{ value: string }> }>)
        .filter((f) => f.required)
        .map((f) => [f.name, f.options ? f.options[0].value : 'yes']),
    );
    const res = await client.submit(ids.plainCampaign, plain.searchId, entry.svc_result_id, {
      program_id: entry.programs[0].value,
      ...answers,
    });
    expect(res.body).toMatchObject({ code: 'ACCEPTED' });
    const got = (await receipts(`partners/${net('plain')}`)).leads.map((l) => l.body).filter((b) => b.search_id === plain.searchId);
    expect(got).toHaveLength(1);
    expect(got[0].lead).toEqual(lead);
    const submits = carried.filter((m) => m.type === MESSAGE_TYPES.PartnerSubmitRequested && m.body.includes(plain.searchId));
    expect(submits).toHaveLength(1);
    // The message carried the lead sealed (opened by partner-adapter at the call): none of its contact data in clear.
    for (const value of contactValues(lead).slice(0, 6)) expect(submits[0].body).not.toContain(value);
    expect(JSON.parse(submits[0].body).contact).toMatchObject({ of: res.body.svc_lead_id });
    for (const key of ['tcpa', 'program', 'question', 'schoolName'] as const) {
      expect((await receipts(`partners/${net(key)}`)).leads).toEqual([]);
    }
  });

  it('a partner configured for contact data gets what its search_fields name, the message carries it sealed for that partner, and catalog apply says so', async () => {
    const other = person();
    const search = await client.searchDone(ids.contactCampaign, other);
    const [asked] = await searchedBy(`partners/${net('contact')}`, search.searchId);
    expect(asked.lead.personal).toEqual({ age_band: '25-34', first_name: 'Ada', email: other.personal.email });
    expect(asked.lead.address).toEqual({ state: 'TX', zip_code: '75001' });
    expect(JSON.stringify(asked)).not.toContain(other.personal.phone);
    expect(JSON.stringify(asked)).not.toContain(other.address.address_line_1);
    const [request] = requestsOf(search.searchId);
    // The message carries that partner the search's sealed contact data, opened by partner-adapter at the call.
    expect(request).not.toContain(other.personal.email);
    expect(JSON.parse(request).partners[0].contact).toMatchObject({ of: search.searchId });

    expect(applied.stdout).toContain(
      `partner "Data partner contact" (${ids.contact.partner}) receives contact data at search: ${CONTACT_FIELDS.join(', ')}`,
    );
    expect(applied.stdout.match(/receives contact data at search/g)).toHaveLength(1);
  });

  it("markup in a partner's display text never reaches the answer or storage, and is counted by partner and field", async () => {
    const marked = ['tcpa', 'program', 'question', 'schoolName'] as const;
    // Each marked partner answered; its result was refused, the others' shown.
    for (const key of marked) expect(plain.results.has(ids[key].offer)).toBe(false);
    expect(plain.results.has(ids.plain.offer)).toBe(true);
    expect(plain.results.has(ids.keyed.offer)).toBe(true);
    const hostile = /<script|onerror|onload|javascript:/i;
    expect(JSON.stringify(plain.body)).not.toMatch(hostile);
    const { rows: calls } = await db.query(
      `SELECT partner_id::text, status, result_count FROM search_partner_calls WHERE search_id = $1 AND partner_id = ANY($2::uuid[])`,
      [plain.searchId, marked.map((k) => ids[k].partner)],
    );
    expect(calls).toHaveLength(marked.length);
    for (const c of calls) expect(c).toMatchObject({ status: 'answered', result_count: 0 });
    const { rows: stored } = await db.query(`SELECT body FROM result_templates WHERE offer_id = ANY($1::uuid[])`, [
      (['plain', 'keyed', ...marked] as const).map((k) => ids[k].offer),
    ]);
    expect(stored.length).toBeGreaterThan(0);
    for (const r of stored) expect(r.body).not.toMatch(hostile);
    for (const m of carried.filter((x) => x.type === MESSAGE_TYPES.PartnerSearchAnswered)) {
      for (const text of Object.values(HOSTILE_TEXT)) expect(m.body).not.toContain(JSON.stringify(text).slice(1, -1));
    }

    const { samples } = await scrape(adapter.url);
    for (const key of marked) {
      expect(total(samples, 'partner_text_refused_total', { partner: `Data partner ${key}`, field: MARKUPS[key] })).toBeGreaterThanOrEqual(
        1,
      );
      expect(total(samples, 'partner_results_dropped_total', { partner: `Data partner ${key}`, reason: 'markup' })).toBeGreaterThanOrEqual(
        1,
      );
    }
  });

  it('a credential header is refused as a literal and accepted as ${env:NAME}; messages and the database carry the reference, never the key', async () => {
    const literal = exchangePartner(id(), 'Literal key', `${sandbox.url}/exchange/${exchange}`, KEY_VARIABLE, {
      headers: { 'X-Api-Key': secret },
    });
    const refused = runOps(['catalog', 'apply', writeCatalogFile({ partners: [literal] })], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'partners[0].headers.X-Api-Key: carries a credential and must be an environment reference ${env:NAME}',
    );
    expect(refused.stderr).not.toContain(secret);
    const { rows: none } = await db.query(`SELECT 1 FROM partners WHERE name = 'Literal key'`);
    expect(none).toEqual([]);

    // The reference was accepted (beforeAll), the key filled in at call time: the exchange answered (it refuses a call without it).
    expect(plain.results.has(ids.keyed.offer)).toBe(true);
    const { rows } = await db.query(`SELECT settings FROM partners WHERE id = $1`, [ids.keyed.partner]);
    expect(rows[0].settings.headers).toEqual({ 'X-Api-Key': `\${env:${KEY_VARIABLE}}` });
    expect(carried.filter((m) => m.type === MESSAGE_TYPES.PartnerSearchRequested).length).toBeGreaterThan(0);
    for (const m of carried) expect(m.body).not.toContain(secret);
    expect(carried.some((m) => m.body.includes(`\${env:${KEY_VARIABLE}}`))).toBe(true);
  });
});
