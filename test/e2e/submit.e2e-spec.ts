import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { sha256Hex } from '../../libs/domain/src';
import { campaign, ownOffer, partnerOffer } from '../support/catalog-builder';
import { call } from '../support/http';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey } from '../support/ops';
import { person, receivedBySchool, SubmitClient } from '../support/submit-flow';
import { TEST_DATABASE_URL, testEnv, uniqueSuffix } from '../support/test-env';
import { openedRow } from '../support/sealed-rows';

/**
 * Submits and direct posts end to end, over HTTP against the running gateway,
 * search-orchestrator, checks, partner-adapter, delivery and the sandbox's
 * schools and partner: every row of LEAD-FIELDS.md's refusal table, the leads
 * endpoint's errors, the repost `Duplicate - Offer`, the data-change 403, test
 * mode, PENDING then the lead status turning final, and payouts.
 */
describe('submit and delivery (e2e)', () => {
  const suffix = uniqueSuffix();
  const env = testEnv(suffix, { SUBMIT_ANSWER_TIMEOUT_MS: '1500' });
  const id = () => randomUUID();
  const ids = {
    affA: id(),
    affB: id(),
    sNorth: id(),
    sA: id(),
    sB: id(),
    sC: id(),
    sTe: id(),
    sCap: id(),
    sRej: id(),
    sDupC: id(),
    sSlow: id(),
    sExp: id(),
    sNoPay: id(),
    sExcl: id(),
    sPartner: id(),
    oMain: id(),
    oA: id(),
    oB: id(),
    oC: id(),
    oTe: id(),
    oCap: id(),
    oRej: id(),
    oDupC: id(),
    oSlow: id(),
    oExp: id(),
    oNoPay: id(),
    oExcl: id(),
    oExclShared: id(),
    partner: id(),
    pOffer: id(),
    sJson: id(),
    oJson: id(),
    cMain: id(),
    cMisc: id(),
    cOther: id(),
    cB: id(),
  };
  const school = (name: string) => `sub${suffix}-${name}`;
  let sandbox: RunningApp;
  let gateway: RunningApp;
  let a: SubmitClient;
  let b: SubmitClient;
  let db: Client;

  const own = (offerId: string, schoolId: string, name: string, outcome = 'accept', extra: Record<string, unknown> = {}) =>
    ownOffer(
      offerId,
      schoolId,
      name,
      {
        adapter: 'sandbox',
        url: `${sandbox.url}/schools/${school(name.toLowerCase().replace(/\W+/g, '-'))}/leads?outcome=${outcome}`,
        timeout_ms: 6000,
      },
      extra,
    );

  function catalog() {
    return {
      affiliates: [
        { id: ids.affA, name: 'Submit A', status: 'active', dupe_check: true },
        { id: ids.affB, name: 'Submit B', status: 'active', dupe_check: false },
      ],
      schools: Object.entries(ids)
        .filter(([k]) => k.startsWith('s'))
        .map(([k, v]) => ({ id: v, name: `School ${k}`, logo_url: null })),
      partners: [
        {
          id: ids.partner,
          name: 'Submit partner',
          adapter: 'sandbox',
          base_url: `${sandbox.url}/partners/${school('partner')}?match=all&outcome=accept`,
          timeout_ms: 5000,
        },
      ],
      offers: [
        own(ids.oMain, ids.sNorth, 'Main', 'accept', {
          priority: 10,
          programs: [
            { value: 'bsn', label: 'BS in Nursing' },
            { value: 'rn-bsn', label: 'RN to BSN' },
            { value: 'msn', label: 'MS in Nursing', eligibility: { education_levels: ['bachelor'] } },
          ],
          form_fields: [
            {
              name: 'hs_grad_year',
              label: 'HS grad year',
              type: 'select',
              required: true,
              options: [
                { value: '2012', label: '2012' },
                { value: '2013', label: '2013' },
              ],
            },
            {
              name: 'rn_license',
              label: 'RN license',
              type: 'select',
              required: false,
              required_when: { program_ids: ['rn-bsn'] },
              options: [
                { value: 'yes', label: 'Yes' },
                { value: 'no', label: 'No' },
              ],
            },
          ],
          eligibility: { states: ['TX', 'CA'] },
        }),
        own(ids.oA, ids.sA, 'Shared A'),
        own(ids.oB, ids.sB, 'Shared B'),
        own(ids.oC, ids.sC, 'Shared C'),
        own(ids.oTe, ids.sTe, 'True Exclusive', 'accept', { offer_type: 'true_exclusive', priority: 1 }),
        own(ids.oCap, ids.sCap, 'Capped', 'accept', { caps: [{ period: 'day', limit: 1, timezone: 'America/Chicago' }] }),
        own(ids.oRej, ids.sRej, 'Rejecting', 'reject&reason=Secret+school+text+about+Ada'),
        own(ids.oDupC, ids.sDupC, 'School Dup', 'duplicate'),
        own(ids.oSlow, ids.sSlow, 'Slow', 'accept&delay_ms=3000'),
        own(ids.oExp, ids.sExp, 'Expiring', 'accept', { result_ttl_seconds: 1 }),
        own(ids.oNoPay, ids.sNoPay, 'No Payout'),
        own(ids.oExcl, ids.sExcl, 'Exclusive', 'accept', { offer_type: 'exclusive' }),
        own(ids.oExclShared, ids.sExcl, 'Exclusive School Shared'),
        own(ids.oJson, ids.sJson, 'Json School', 'accept', {
          delivery: {
            adapter: 'json',
            url: `${sandbox.url}/schools/${school('json')}/leads?outcome=accept`,
            timeout_ms: 5000,
            headers: { 'X-Vendor': 'lead-router' },
            field_map: {
              'applicant.email': 'lead.personal.email',
              'applicant.zip': 'lead.address.zip_code',
              reference: 'lead_id',
              source: '=lead-router',
            },
            response_rules: {
              accepted: { path: 'result', in: ['accepted'] },
              duplicate: { path: 'result', in: ['duplicate'] },
              buyer_lead_id_path: 'id',
            },
          },
        }),
        partnerOffer(ids.pOffer, ids.sPartner, 'Partner offer', ids.partner, `ext-${ids.pOffer.slice(0, 8)}`, { result_ttl_seconds: 600 }),
      ],
      campaigns: [
        campaign(ids.cMain, ids.affA, 'Main', [
          { offer_id: ids.oMain, payout: 20, program_payouts: { bsn: 30 } },
          { offer_id: ids.oA, payout: 5 },
          { offer_id: ids.oB, payout: 5 },
          { offer_id: ids.oC, payout: 5 },
          { offer_id: ids.oTe, payout: 50 },
          { offer_id: ids.pOffer, payout: 12.5 },
        ]),
        campaign(ids.cMisc, ids.affA, 'Misc', [
          { offer_id: ids.oCap, payout: 8 },
          { offer_id: ids.oRej, payout: 8 },
          { offer_id: ids.oDupC, payout: 8 },
          { offer_id: ids.oSlow, payout: 9 },
          { offer_id: ids.oExp, payout: 8 },
          { offer_id: ids.oNoPay },
          { offer_id: ids.oExcl, payout: 8 },
          { offer_id: ids.oExclShared, payout: 8 },
          { offer_id: ids.oJson, payout: 7 },
        ]),
        campaign(ids.cOther, ids.affA, 'Other', [{ offer_id: ids.oMain, payout: 1 }]),
        campaign(ids.cB, ids.affB, 'B', [{ offer_id: ids.oMain, payout: 1 }, { offer_id: ids.oA }]),
      ],
    };
  }

  beforeAll(async () => {
    sandbox = await startApp('sandbox', env, 'live');
    applyCatalog(catalog(), env);
    const roomy = [
      '--limit',
      'search=6000/1000',
      '--limit',
      'results=6000/1000',
      '--limit',
      'leads=6000/1000',
      '--limit',
      'dupe-check=6000/1000',
    ];
    a = new SubmitClient('', issueKey(ids.affA, env, roomy).key, ids.affA);
    b = new SubmitClient('', issueKey(ids.affB, env, roomy).key, ids.affB);
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    await Promise.all([
      startApp('checks', env),
      startApp('partner-adapter', env),
      startApp('search-orchestrator', env),
      startApp('delivery', env),
    ]);
    gateway = await startApp('gateway', env);
    a = new SubmitClient(gateway.url, a.key, ids.affA);
    b = new SubmitClient(gateway.url, b.key, ids.affB);
  });

  afterAll(async () => {
    await stopAppsAndTopology(env);
    await db?.end();
  });

  const mainAnswers = { program_id: 'bsn', hs_grad_year: '2013' };
  /** Answers a result's questions: its first program, and the first option (or a number) of every question. */
  const answersFor = (entry: {
    programs: Array<{ value: string }>;
    form_fields: Array<{ name: string; type: string; options?: Array<{ value: string }> }>;
  }) => ({
    ...(entry.programs[0] ? { program_id: entry.programs[0].value } : {}),
    ...Object.fromEntries(entry.form_fields.map((f) => [f.name, f.options?.[0]?.value ?? (f.type === 'number' ? '1' : 'yes')])),
  });

  describe('accepted submits and payouts', () => {
    it('accepts a result submit: the sandbox school receives it once, the payout is the program payout, the lead is stored with its consent', async () => {
      const lead = person();
      const s = await a.searchDone(ids.cMain, lead);
      const res = await a.submit(ids.cMain, s.searchId, s.results.get(ids.oMain).svc_result_id, mainAnswers);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          code: 'ACCEPTED',
          status: 'accepted',
          reason: 'Lead accepted',
          success: true,
          accepted: true,
          retryable: false,
          payout: 30,
        }),
      );
      expect(res.body.svc_lead_id).not.toBe(s.searchId);
      expect(res.body).not.toHaveProperty('source');
      expect(res.text).not.toContain('price'); // never the offer's price

      const received = await receivedBySchool(sandbox.url, school('main'));
      expect(received.get(res.body.svc_lead_id)).toBe(1);
      const [row] = (
        await db.query(`SELECT kind, search_id, status, payout, program_id, answers, lead_group_id FROM leads WHERE id = $1`, [
          res.body.svc_lead_id,
        ])
      ).rows;
      expect(row).toEqual({
        kind: 'result_submit',
        search_id: s.searchId,
        status: 'accepted',
        payout: '30.00',
        program_id: 'bsn',
        answers: { hs_grad_year: '2013' },
        lead_group_id: s.searchId,
      });
      const [consent] = (
        await db.query(`SELECT tcpa_consent, tcpa_text, button_label, ip FROM consent_evidence WHERE lead_id = $1`, [res.body.svc_lead_id])
      ).rows;
      expect(consent).toEqual({
        tcpa_consent: true,
        tcpa_text: 'I agree that Main may contact me.',
        button_label: 'Request info',
        ip: '73.12.44.10',
      });
      const [sale] = (await db.query(`SELECT status, payout, price FROM sales WHERE lead_id = $1`, [res.body.svc_lead_id])).rows;
      expect(sale).toEqual({ status: 'accepted', payout: '30.00', price: '45.00' });

      // The search's envelope counts the sale.
      const poll = await call(gateway.url, 'GET', `/api/v1/engine/results/${s.searchId}`, { key: a.key });
      expect(poll.body.accepted_count).toBe(1);
      // The lead status reads the same decision; another affiliate's key gets 404.
      const status = await a.leadStatus(res.body.svc_lead_id);
      expect(status.body).toEqual(
        expect.objectContaining({ code: 'ACCEPTED', status: 'accepted', payout: 30, svc_lead_id: res.body.svc_lead_id }),
      );
      expect((await b.leadStatus(res.body.svc_lead_id)).status).toBe(404);
      expect((await a.leadStatus(randomUUID())).status).toBe(404);
    });

    it('a result submitted before its expires_at after its search left Redis is accepted (PostgreSQL answers for the shown result)', async () => {
      const s = await a.searchDone(ids.cMain, person());
      const { default: Redis } = await import('ioredis');
      const redis = new Redis(env.REDIS_URL, { keyPrefix: env.REDIS_KEY_PREFIX });
      try {
        expect(await redis.ttl(`search:${s.searchId}`)).toBeGreaterThan(0); // sized by need, not kept forever
        await redis.del(`search:${s.searchId}`);
      } finally {
        redis.disconnect();
      }
      const res = await a.submit(ids.cMain, s.searchId, s.results.get(ids.oMain).svc_result_id, mainAnswers);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(expect.objectContaining({ code: 'ACCEPTED', payout: 30 }));
    });

    it('a program without its own payout gets the campaign payout; an offer with none configured answers no payout key', async () => {
      const s = await a.searchDone(ids.cMain, person());
      const rn = await a.submit(ids.cMain, s.searchId, s.results.get(ids.oMain).svc_result_id, {
        program_id: 'rn-bsn',
        hs_grad_year: '2012',
        rn_license: 'yes',
      });
      expect([rn.body.code, rn.body.payout]).toEqual(['ACCEPTED', 20]);
      const m = await a.searchDone(ids.cMisc, person());
      const none = await a.submit(ids.cMisc, m.searchId, m.results.get(ids.oNoPay).svc_result_id);
      expect(none.body.code).toBe('ACCEPTED');
      expect(none.body).not.toHaveProperty('payout');
    });

    it('a partner result is posted to its partner network through partner-adapter', async () => {
      const s = await a.searchDone(ids.cMain, person());
      const entry = s.results.get(ids.pOffer);
      const res = await a.submit(ids.cMain, s.searchId, entry.svc_result_id, answersFor(entry));
      expect([res.status, res.body.code]).toEqual([200, 'ACCEPTED']);
      expect(res.body.payout).toBeGreaterThan(0);
      const received = (await (await fetch(`${sandbox.url}/partners/${school('partner')}/received`)).json()) as {
        submits?: unknown[];
        items?: unknown[];
      };
      expect(JSON.stringify(received)).toContain(res.body.svc_lead_id);
    });

    it('a school on the generic JSON adapter gets the mapped body and its answer is read by the response rules', async () => {
      const lead = person();
      const res = await a.directPost(ids.cMisc, ids.oJson, lead);
      expect([res.body.code, res.body.payout]).toEqual(['ACCEPTED', 7]);
      const got = (await (await fetch(`${sandbox.url}/schools/${school('json')}/received`)).json()) as {
        leads: Array<{ body: unknown; headers: Record<string, string> }>;
      };
      expect(got.leads).toHaveLength(1);
      expect(got.leads[0].body).toEqual({
        applicant: { email: lead.personal.email, zip: '75001' },
        reference: res.body.svc_lead_id,
        source: 'lead-router',
      });
      expect(got.leads[0].headers['idempotency-key']).toBe(res.body.svc_lead_id);
    });

    it('the submit lead fields replace the search values, and the delivered lead carries them', async () => {
      const lead = person();
      const s = await a.searchDone(ids.cMain, lead);
      const res = await a.submit(ids.cMain, s.searchId, s.results.get(ids.oA).svc_result_id, {
        lead: { personal: { first_name: 'Augusta' } },
      });
      expect(res.body.code).toBe('ACCEPTED');
      const row = (await openedRow(db, 'leads', res.body.svc_lead_id))!;
      expect(row.lead.personal).toEqual(expect.objectContaining({ first_name: 'Augusta', email: lead.personal.email }));
    });
  });

  describe('refusals inside a 200 answer (LEAD-FIELDS.md)', () => {
    let search: { searchId: string; results: Map<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- a result entry as the JSON answer shows it; each test reads the fields it asserts on.
    beforeAll(async () => {
      search = await a.searchDone(ids.cMain, person());
    });
    const main = () => search.results.get(ids.oMain).svc_result_id;

    it('a required answer left out: invalid REQUIRED_FIELD_MISSING naming the question', async () => {
      const res = await a.submit(ids.cMain, search.searchId, main(), { program_id: 'bsn' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          status: 'invalid',
          code: 'REQUIRED_FIELD_MISSING',
          reason: 'Missing HS grad year',
          payout: 0,
          success: false,
          accepted: false,
        }),
      );
      const when = await a.submit(ids.cMain, search.searchId, main(), { program_id: 'rn-bsn', hs_grad_year: '2013' });
      expect([when.body.code, when.body.reason]).toEqual(['REQUIRED_FIELD_MISSING', 'Missing RN license']);
    });

    it('an answer outside the options, or an unknown program: invalid INVALID_FIELD', async () => {
      const bad = await a.submit(ids.cMain, search.searchId, main(), { program_id: 'bsn', hs_grad_year: '1999' });
      expect([bad.body.status, bad.body.code, bad.body.field]).toEqual(['invalid', 'INVALID_FIELD', 'hs_grad_year']);
      const prog = await a.submit(ids.cMain, search.searchId, main(), { program_id: 'mba', hs_grad_year: '2013' });
      expect([prog.body.status, prog.body.code, prog.body.field]).toEqual(['invalid', 'INVALID_FIELD', 'program_id']);
    });

    it('tcpa_consent absent: REQUIRED_FIELD_MISSING; false: CONSENT_REQUIRED (consent is never taken from the search)', async () => {
      const s = await a.searchDone(ids.cMain, person(), { tcpa_consent: true });
      const absent = await a.submit(ids.cMain, s.searchId, s.results.get(ids.oA).svc_result_id, { tcpa_consent: undefined });
      expect([absent.body.status, absent.body.code]).toEqual(['invalid', 'REQUIRED_FIELD_MISSING']);
      const no = await a.submit(ids.cMain, s.searchId, s.results.get(ids.oA).svc_result_id, { tcpa_consent: false });
      expect([no.body.status, no.body.code]).toEqual(['invalid', 'CONSENT_REQUIRED']);
      const [ev] = (await db.query(`SELECT tcpa_consent FROM consent_evidence WHERE lead_id = $1`, [no.body.svc_lead_id])).rows;
      expect(ev).toEqual({ tcpa_consent: false });
      // Each refused submit is its own lead linked to the search.
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM leads WHERE search_id = $1 AND status = 'invalid'`, [s.searchId]);
      expect(rows[0].n).toBe(2);
    });

    it('a lead that fails the offer or program eligibility: rejected NOT_ELIGIBLE', async () => {
      // Shown MS in Nursing as a bachelor; submitted with a lower education level, the program no longer qualifies.
      const s = await a.searchDone(ids.cMain, person({ education_level: 'bachelor' }));
      expect(s.results.get(ids.oMain).programs.map((p: { value: string }) => p.value)).toContain('msn');
      const program = await a.submit(ids.cMain, s.searchId, s.results.get(ids.oMain).svc_result_id, {
        program_id: 'msn',
        hs_grad_year: '2013',
        lead: { education: { education_level: 'associate' } },
      });
      expect([program.body.status, program.body.code]).toEqual(['rejected', 'NOT_ELIGIBLE']);
      const moved = await a.submit(ids.cMain, s.searchId, s.results.get(ids.oMain).svc_result_id, {
        ...mainAnswers,
        lead: { address: { state: 'NY' } },
      });
      expect([moved.body.status, moved.body.code]).toEqual(['rejected', 'NOT_ELIGIBLE']);
    });

    it('a repost of an accepted submit, and the same person already sold to the offer: DUPLICATE Duplicate - Offer', async () => {
      const lead = person();
      const s = await a.searchDone(ids.cMain, lead);
      const first = await a.submit(ids.cMain, s.searchId, s.results.get(ids.oB).svc_result_id);
      expect(first.body.code).toBe('ACCEPTED');
      const again = await a.submit(ids.cMain, s.searchId, s.results.get(ids.oB).svc_result_id);
      expect(again.body).toEqual(
        expect.objectContaining({ status: 'rejected', code: 'DUPLICATE', reason: 'Duplicate - Offer', payout: 0 }),
      );

      // The same person (email written differently) in a new search: the offer is left out of the results...
      const sameEmail = { ...person(), personal: { ...person().personal, email: `  ${lead.personal.email.toUpperCase()}` } };
      const s2 = await a.searchDone(ids.cMain, sameEmail);
      expect(s2.results.has(ids.oB)).toBe(false);
      // ...and a direct post of that person to it is refused as a duplicate.
      const post = await a.directPost(ids.cMain, ids.oB, sameEmail);
      expect([post.body.code, post.body.reason]).toEqual(['DUPLICATE', 'Duplicate - Offer']);
      expect((await receivedBySchool(sandbox.url, school('shared-b'))).get(post.body.svc_lead_id)).toBeUndefined();
    });

    it('the school system says duplicate: DUPLICATE Duplicate - Client; the sale and cap slot are released', async () => {
      const s = await a.searchDone(ids.cMisc, person());
      const res = await a.submit(ids.cMisc, s.searchId, s.results.get(ids.oDupC).svc_result_id);
      expect(res.body).toEqual(
        expect.objectContaining({ status: 'rejected', code: 'DUPLICATE', reason: 'Duplicate - Client', source: 'buyer', payout: 0 }),
      );
      const [sale] = (await db.query(`SELECT status FROM sales WHERE lead_id = $1`, [res.body.svc_lead_id])).rows;
      expect(sale.status).toBe('released');
    });

    it('the school system refuses: BUYER_REJECTED with a standardized reason, never the school text', async () => {
      const s = await a.searchDone(ids.cMisc, person());
      const res = await a.submit(ids.cMisc, s.searchId, s.results.get(ids.oRej).svc_result_id);
      expect(res.body).toEqual(
        expect.objectContaining({ status: 'rejected', code: 'BUYER_REJECTED', reason: 'Rejected - Client', payout: 0 }),
      );
      expect(res.text).not.toContain('Secret');
      const [attempt] = (await db.query(`SELECT outcome, detail FROM delivery_attempts WHERE lead_id = $1`, [res.body.svc_lead_id])).rows;
      expect(attempt.outcome).toBe('rejected');
      expect(attempt.detail).toContain('Secret school text'); // kept for operators only
    });

    it('a full cap: CAP_REACHED with reason Cap reached and nothing about the level', async () => {
      const s1 = await a.searchDone(ids.cMisc, person());
      const s2 = await a.searchDone(ids.cMisc, person());
      const first = await a.submit(ids.cMisc, s1.searchId, s1.results.get(ids.oCap).svc_result_id);
      expect(first.body.code).toBe('ACCEPTED');
      const second = await a.submit(ids.cMisc, s2.searchId, s2.results.get(ids.oCap).svc_result_id);
      expect(second.body).toEqual(expect.objectContaining({ status: 'rejected', code: 'CAP_REACHED', reason: 'Cap reached', payout: 0 }));
      for (const k of ['source', 'level', 'cap_level', 'cap_message']) expect(second.body).not.toHaveProperty(k);
      expect(second.text.toLowerCase()).not.toMatch(/day|campaign|offer cap/);
    });

    it('a result past expires_at: OFFER_UNAVAILABLE', async () => {
      const s = await a.searchDone(ids.cMisc, person());
      await new Promise((r) => setTimeout(r, 1200));
      const res = await a.submit(ids.cMisc, s.searchId, s.results.get(ids.oExp).svc_result_id);
      expect([res.body.status, res.body.code]).toEqual(['rejected', 'OFFER_UNAVAILABLE']);
    });

    it('a school slower than the answer deadline: PENDING (202), then the lead status turns final', async () => {
      const s = await a.searchDone(ids.cMisc, person());
      const res = await a.submit(ids.cMisc, s.searchId, s.results.get(ids.oSlow).svc_result_id);
      expect(res.status).toBe(202);
      expect(res.body).toEqual(expect.objectContaining({ status: 'pending', code: 'PENDING', accepted: false, retryable: false }));
      const pending = await a.leadStatus(res.body.svc_lead_id);
      expect(pending.body.status).toBe('pending');
      const final = await a.finalStatus(res.body.svc_lead_id);
      expect(final.body).toEqual(
        expect.objectContaining({ status: 'accepted', code: 'ACCEPTED', payout: 9, svc_lead_id: res.body.svc_lead_id }),
      );
    });
  });

  describe('sales rules', () => {
    it('up to three shared sales per search; the fourth is NOT_ELIGIBLE and says why', async () => {
      const s = await a.searchDone(ids.cMain, person());
      for (const o of [ids.oA, ids.oB, ids.oC])
        expect((await a.submit(ids.cMain, s.searchId, s.results.get(o).svc_result_id)).body.code).toBe('ACCEPTED');
      const fourth = await a.submit(ids.cMain, s.searchId, s.results.get(ids.oMain).svc_result_id, mainAnswers);
      expect([fourth.body.code, fourth.body.reason]).toEqual(['NOT_ELIGIBLE', 'Lead already sold the maximum number of times']);
      const poll = await call(gateway.url, 'GET', `/api/v1/engine/results/${s.searchId}`, { key: a.key });
      expect(poll.body.accepted_count).toBe(3);
    });

    it('true_exclusive ends every other sale', async () => {
      const s = await a.searchDone(ids.cMain, person());
      const te = await a.submit(ids.cMain, s.searchId, s.results.get(ids.oTe).svc_result_id);
      expect([te.body.code, te.body.payout]).toEqual(['ACCEPTED', 50]);
      const later = await a.submit(ids.cMain, s.searchId, s.results.get(ids.oA).svc_result_id);
      expect([later.body.code, later.body.reason]).toEqual(['NOT_ELIGIBLE', 'Lead already sold exclusively']);
      const poll = await call(gateway.url, 'GET', `/api/v1/engine/results/${s.searchId}`, { key: a.key });
      expect(poll.body.true_exclusive_accepted).toBe(true);
    });

    it('exclusive ends the sale to that school’s other offers (a direct post and its retry)', async () => {
      const lead = person();
      const first = await a.directPost(ids.cMisc, ids.oExcl, lead);
      expect(first.body.code).toBe('ACCEPTED');
      const retry = await a.directPost(ids.cMisc, ids.oExclShared, lead, { svc_lead_id: first.body.svc_lead_id });
      expect([retry.body.code, retry.body.reason]).toEqual(['NOT_ELIGIBLE', 'School already bought this lead exclusively']);
      // A retry to the same offer is recognised as a repost.
      const repost = await a.directPost(ids.cMisc, ids.oExcl, lead, { svc_lead_id: first.body.svc_lead_id });
      expect([repost.body.code, repost.body.reason]).toEqual(['DUPLICATE', 'Duplicate - Offer']);
      expect((await receivedBySchool(sandbox.url, school('exclusive'))).get(repost.body.svc_lead_id)).toBeUndefined();
    });
  });

  describe('test mode', () => {
    it('a test submit is held: TEST_LEAD_HELD, never delivered, never counted', async () => {
      const s = await a.searchDone(ids.cMain, person(), { svc_is_test_lead: true });
      const res = await a.submit(ids.cMain, s.searchId, s.results.get(ids.oC).svc_result_id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          code: 'TEST_LEAD_HELD',
          status: 'held',
          reason: 'Test lead held',
          payout: 0,
          submitted: false,
          test_lead: true,
          success: true,
          accepted: true,
        }),
      );
      expect((await receivedBySchool(sandbox.url, school('shared-c'))).get(res.body.svc_lead_id)).toBeUndefined();
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM sales WHERE lead_id = $1`, [res.body.svc_lead_id]);
      expect(rows[0].n).toBe(0);
      const keys = await db.query(`SELECT count(*)::int AS n FROM dedupe_keys WHERE lead_id = $1`, [res.body.svc_lead_id]);
      expect(keys.rows[0].n).toBe(0);
      // A test search's submit stays a test lead, even without the flag; a required answer is still checked.
      const main = await a.searchDone(ids.cMain, person(), { svc_is_test_lead: true });
      const missing = await a.submit(ids.cMain, main.searchId, main.results.get(ids.oMain).svc_result_id, {
        program_id: 'bsn',
        svc_is_test_lead: false,
      });
      expect(missing.body.code).toBe('REQUIRED_FIELD_MISSING');
      const held = await a.submit(ids.cMain, main.searchId, main.results.get(ids.oMain).svc_result_id, mainAnswers);
      expect([held.body.code, held.body.test_lead]).toEqual(['TEST_LEAD_HELD', true]);
    });

    it('a test direct post is held too', async () => {
      const res = await a.directPost(ids.cMain, ids.oA, person(), { svc_is_test_lead: true });
      expect([res.body.code, res.body.status]).toEqual(['TEST_LEAD_HELD', 'held']);
    });
  });

  describe('leads endpoint errors', () => {
    it('a change to the data of a submitted lead: 403 FORBIDDEN and nothing saved', async () => {
      const s = await a.searchDone(ids.cMain, person());
      expect((await a.submit(ids.cMain, s.searchId, s.results.get(ids.oA).svc_result_id)).body.code).toBe('ACCEPTED');
      const before = (await db.query(`SELECT count(*)::int AS n FROM leads WHERE search_id = $1`, [s.searchId])).rows[0].n;
      const changed = await a.submit(ids.cMain, s.searchId, s.results.get(ids.oB).svc_result_id, {
        lead: { personal: { first_name: 'Someone' } },
      });
      expect([changed.status, changed.body.code, changed.body.status]).toEqual([403, 'FORBIDDEN', 'invalid']);
      const after = (await db.query(`SELECT count(*)::int AS n FROM leads WHERE search_id = $1`, [s.searchId])).rows[0].n;
      expect(after).toBe(before);
      // Sending the same values again is not a change.
      const same = await a.submit(ids.cMain, s.searchId, s.results.get(ids.oB).svc_result_id, { lead: { address: { state: 'TX' } } });
      expect(same.body.code).toBe('ACCEPTED');
    });

    it('another affiliate’s result: 404 search_result_not_found; a campaign not the result’s: 403 result_campaign_mismatch', async () => {
      const s = await a.searchDone(ids.cMain, person());
      const resultId = s.results.get(ids.oMain).svc_result_id;
      const other = await b.submit(ids.cB, s.searchId, resultId, mainAnswers);
      expect([other.status, other.body.code, other.body.error]).toEqual([404, 'NOT_FOUND', 'search_result_not_found']);
      const mismatch = await a.submit(ids.cOther, s.searchId, resultId, mainAnswers);
      expect([mismatch.status, mismatch.body.code, mismatch.body.error]).toEqual([403, 'FORBIDDEN', 'result_campaign_mismatch']);
      const wrongAffiliate = await call(gateway.url, 'POST', '/api/v1/engine/leads', {
        key: a.key,
        body: { svc_campaign_id: ids.cMain, svc_affiliate_id: ids.affB, svc_result_id: resultId, search_lead_id: s.searchId },
      });
      expect([wrongAffiliate.status, wrongAffiliate.body.code]).toEqual([403, 'FORBIDDEN']);
      const noSearch = await call(gateway.url, 'POST', '/api/v1/engine/leads', {
        key: a.key,
        body: { svc_campaign_id: ids.cMain, svc_affiliate_id: ids.affA, svc_result_id: resultId },
      });
      expect([noSearch.status, noSearch.body.code]).toEqual([409, 'MALFORMED_REQUEST']);
      const noKey = await call(gateway.url, 'POST', '/api/v1/engine/leads', { body: {} });
      expect([noKey.status, noKey.body.code]).toEqual([401, 'AUTH_REQUIRED']);
      const badKey = await call(gateway.url, 'POST', '/api/v1/engine/leads', { key: 'nope', body: {} });
      expect([badKey.status, badKey.body.code]).toEqual([401, 'AUTH_INVALID']);
      const badField = await call(gateway.url, 'POST', '/api/v1/engine/leads', {
        key: a.key,
        body: { svc_campaign_id: 'x', svc_affiliate_id: ids.affA, svc_result_id: resultId, search_lead_id: s.searchId },
      });
      expect([badField.status, badField.body.code, badField.body.field]).toEqual([400, 'INVALID_FIELD', 'svc_campaign_id']);
      const missing = await call(gateway.url, 'POST', '/api/v1/engine/leads', {
        key: a.key,
        body: { svc_affiliate_id: ids.affA, svc_result_id: resultId, search_lead_id: s.searchId },
      });
      expect([missing.status, missing.body.code]).toEqual([400, 'REQUIRED_FIELD_MISSING']);
    });

    it('a direct-post retry naming an unknown or another affiliate’s lead: 404', async () => {
      const mine = await a.directPost(ids.cMain, ids.oA, person());
      expect(mine.body.code).toBe('ACCEPTED');
      const unknown = await a.directPost(ids.cMain, ids.oA, person(), { svc_lead_id: randomUUID() });
      expect([unknown.status, unknown.body.code]).toEqual([404, 'NOT_FOUND']);
      const theirs = await b.directPost(ids.cB, ids.oA, person(), { svc_lead_id: mine.body.svc_lead_id });
      expect([theirs.status, theirs.body.code]).toEqual([404, 'NOT_FOUND']);
    });

    it('over the key’s leads limit: 429 RATE_LIMITED with Retry-After; every call counts', async () => {
      const tight = issueKey(ids.affA, env, ['--limit', 'leads=60/2']).key;
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await call(gateway.url, 'GET', `/api/v1/engine/leads/${randomUUID()}`, { key: tight }));
      expect(answers.map((r) => r.status)).toEqual([404, 404, 429]);
      expect(answers[2].body).toEqual(expect.objectContaining({ code: 'RATE_LIMITED', status: 'failed', retryable: true }));
      expect(Number(answers[2].headers.get('retry-after'))).toBeGreaterThan(0);
    });
  });

  describe('the duplicate pre-check after real submits', () => {
    const precheck = (body: Record<string, unknown>) => call(gateway.url, 'POST', '/api/v1/engine/dupe-check', { key: a.key, body });

    it('says duplicate_likely for an accepted live lead’s person (raw in other formatting, or hashed), not for others, test leads or outside the window', async () => {
      const sold = person();
      const accepted = await a.directPost(ids.cMain, ids.oA, sold);
      expect(accepted.body.code).toBe('ACCEPTED');
      const p = sold.personal;
      const digits = p.phone;
      const formatted = {
        email: `  ${p.email.toUpperCase()} `,
        phone: `+1 (${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`,
      };
      const raw = await precheck(formatted);
      expect(raw.body).toEqual({ code: 'OK', status: 'accepted', reason: 'OK', success: true, duplicate_likely: true, retryable: false });
      expect((await precheck({ ...formatted, offer_id: ids.oA })).body.duplicate_likely).toBe(true);
      expect((await precheck({ phone: formatted.phone, offer_id: ids.oB })).body.duplicate_likely).toBe(false);
      expect((await precheck({ hashed: { email: sha256Hex(p.email.toLowerCase()) } })).body.duplicate_likely).toBe(true);
      expect((await precheck({ last_name: p.last_name.toUpperCase(), zip: '75001-1234', dob: '04/12/1995' })).body.duplicate_likely).toBe(
        true,
      );

      expect((await precheck({ email: person().personal.email })).body.duplicate_likely).toBe(false);

      const tester = person();
      expect((await a.directPost(ids.cMain, ids.oA, tester, { svc_is_test_lead: true })).body.code).toBe('TEST_LEAD_HELD');
      expect((await precheck({ email: tester.personal.email })).body.duplicate_likely).toBe(false);

      // A refused sale leaves nothing behind either.
      const refused = person();
      expect((await a.directPost(ids.cMisc, ids.oRej, refused)).body.code).toBe('BUYER_REJECTED');
      expect((await precheck({ email: refused.personal.email })).body.duplicate_likely).toBe(false);

      // Past the offer's window (30 days) the person is no longer a duplicate.
      await db.query(`UPDATE dedupe_keys SET accepted_at = now() - interval '31 days' WHERE lead_id = $1`, [accepted.body.svc_lead_id]);
      expect((await precheck(formatted)).body.duplicate_likely).toBe(false);
    });
  });
});
