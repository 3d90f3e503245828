import { randomUUID } from 'node:crypto';
import { RunningSandbox } from '../../../apps/sandbox/src/sandbox-app';
import { call, expectNoAnswer, sampleLead, sleep, startSandbox } from './sandbox-harness';

describe('sandbox partner networks', () => {
  let sandbox: RunningSandbox;
  let n = 0;
  const partner = () => `partner${++n}`;
  /** A partner base_url as the catalog holds it, and the protocol's two calls on it. */
  const baseUrl = (name: string, query = '') => `${sandbox.url}/partners/${name}${query ? `?${query}` : ''}`;
  const endpoint = (base: string, op: 'search' | 'submit') => {
    const url = new URL(base);
    url.pathname += `/${op}`;
    return url.toString();
  };
  const searchBody = (ids: string[], searchId = randomUUID()) => ({
    search_id: searchId,
    offers: ids.map((external_id) => ({ external_id })),
    lead: sampleLead(),
    tracking: { ip_address: '203.0.113.9', sub_id: 's1' },
    is_test: false,
  });
  const OFFERS = ['westlake-001', 'harbor-002', 'summit-003', 'pine-valley-004', 'lakeshore-005'];
  const received = (name: string) => call(`${sandbox.url}/partners/${name}/received`).then((a) => a.body);

  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  describe('search', () => {
    it('answers one result per offer asked about with match=all, in the order asked', async () => {
      const base = baseUrl(partner(), 'delay_ms=0&match=all&outcome=accept');
      const body = searchBody(OFFERS.slice(0, 3));
      const a = await call(endpoint(base, 'search'), { body });
      expect(a.status).toBe(200);
      expect(a.body.search_id).toBe(body.search_id);
      expect(a.body.results.map((r: { external_id: string }) => r.external_id)).toEqual(OFFERS.slice(0, 3));
      for (const r of a.body.results) {
        expect(r).toEqual({
          external_id: expect.any(String),
          partner_result_id: expect.stringMatching(/^pr_[0-9a-f]{24}$/),
          programs: expect.arrayContaining([{ value: expect.any(String), label: expect.any(String) }]),
          form_fields: expect.any(Array),
          tcpa_text: expect.stringContaining(r.school.name),
          school: { name: expect.any(String), logo_url: expect.stringMatching(/^https:\/\//) },
          expires_in_seconds: expect.any(Number),
        });
        expect(r.programs.length).toBeGreaterThanOrEqual(1);
        expect(r.expires_in_seconds).toBeGreaterThan(0);
        for (const f of r.form_fields) {
          expect(f).toMatchObject({
            name: expect.any(String),
            label: expect.any(String),
            type: expect.stringMatching(/^(select|text)$/),
            required: expect.any(Boolean),
          });
          if (f.type === 'select') expect(f.options.length).toBeGreaterThan(0);
          if (f.required_when)
            expect(r.programs.map((p: { value: string }) => p.value)).toEqual(expect.arrayContaining(f.required_when.program_ids));
        }
      }
      expect(a.body.results[0].school.name).toMatch(/^Westlake /);
      expect(new Set(a.body.results.map((r: { partner_result_id: string }) => r.partner_result_id)).size).toBe(3);
    });

    it('gives the same content for an offer in every search; partner_result_id is per search', async () => {
      const name = partner();
      const searchId = randomUUID();
      const one = await call(endpoint(baseUrl(name), 'search'), { body: searchBody(['westlake-001', 'harbor-002'], searchId) });
      const same = await call(endpoint(baseUrl(name), 'search'), { body: searchBody(['westlake-001', 'harbor-002'], searchId) });
      const other = await call(endpoint(baseUrl(name, 'match=all'), 'search'), { body: searchBody(['harbor-002', 'westlake-001']) });
      expect(same.body.results).toEqual(one.body.results);
      const strip = ({ partner_result_id: _, ...rest }: { partner_result_id: string }) => rest;
      expect(other.body.results.map(strip)).toEqual([strip(one.body.results[1]), strip(one.body.results[0])]);
      expect(other.body.results[1].partner_result_id).not.toBe(one.body.results[0].partner_result_id);
    });

    it('varies results between offers (programs, questions, schools)', async () => {
      const ids = Array.from({ length: 12 }, (_, i) => `offer-${i}`);
      const a = await call(endpoint(baseUrl(partner()), 'search'), { body: searchBody(ids) });
      const shapes = new Set(
        a.body.results.map((r: { programs: unknown[]; form_fields: unknown[] }) => JSON.stringify([r.programs, r.form_fields])),
      );
      expect(shapes.size).toBeGreaterThan(3);
    });

    it('answers no results with match=none', async () => {
      const a = await call(endpoint(baseUrl(partner(), 'match=none'), 'search'), { body: searchBody(OFFERS) });
      expect(a.status).toBe(200);
      expect(a.body.results).toEqual([]);
    });

    it('answers every other offer (1st, 3rd, 5th) with match=some', async () => {
      const a = await call(endpoint(baseUrl(partner(), 'match=some'), 'search'), { body: searchBody(OFFERS) });
      expect(a.body.results.map((r: { external_id: string }) => r.external_id)).toEqual([OFFERS[0], OFFERS[2], OFFERS[4]]);
    });

    it('answers after delay_ms', async () => {
      const a = await call(endpoint(baseUrl(partner(), 'delay_ms=500&match=all&outcome=accept'), 'search'), {
        body: searchBody(OFFERS.slice(0, 1)),
      });
      expect(a.status).toBe(200);
      expect(a.ms).toBeGreaterThanOrEqual(480);
      expect(a.ms).toBeLessThan(3000);
    });

    it('answers 500 with outcome=error and nothing with outcome=timeout', async () => {
      const name = partner();
      const failed = await call(endpoint(baseUrl(name, 'outcome=error'), 'search'), { body: searchBody(OFFERS) });
      expect(failed.status).toBe(500);
      const controller = new AbortController();
      const held = expectNoAnswer(
        call(endpoint(baseUrl(name, 'outcome=timeout'), 'search'), { body: searchBody(OFFERS), signal: controller.signal }),
      );
      await sleep(300);
      controller.abort();
      expect((await held).name).toBe('AbortError');
      const viaHeader = await call(endpoint(baseUrl(name), 'search'), {
        body: searchBody(OFFERS),
        headers: { 'x-sandbox-outcome': 'error' },
      });
      expect(viaHeader.status).toBe(500);
    });

    it('answers a search normally when the outcome is about submits (reject, duplicate)', async () => {
      const a = await call(endpoint(baseUrl(partner(), 'outcome=reject&reason=Nope'), 'search'), { body: searchBody(OFFERS.slice(0, 2)) });
      expect(a.status).toBe(200);
      expect(a.body.results).toHaveLength(2);
    });

    it('records searches separately from submits', async () => {
      const name = partner();
      const body = searchBody(OFFERS.slice(0, 2));
      await call(endpoint(baseUrl(name), 'search'), { body, headers: { 'x-request-id': 'search-req-0001' } });
      const list = await received(name);
      expect(list).toMatchObject({ partner: name, count: 0, leads: [], search_count: 1, search_total_received: 1 });
      expect(list.searches[0]).toMatchObject({
        body,
        request_id: 'search-req-0001',
        outcome: 'accept',
        headers: { 'x-request-id': 'search-req-0001' },
      });
    });

    it.each([
      [{ offers: [] }, 'search_id'],
      [{ search_id: 'x' }, 'offers'],
      [{ search_id: 'x', offers: [{ id: 'a' }] }, 'offers[0].external_id'],
      [{ search_id: 'x', offers: ['a'] }, 'offers[0]'],
      [{ search_id: 'x', offers: [], is_test: 'no' }, 'is_test'],
      [{ search_id: 'x', offers: [], lead: 'ada' }, 'lead'],
    ])('answers 400 naming the body field for %j', async (body, param) => {
      const name = partner();
      const a = await call(endpoint(baseUrl(name), 'search'), { body });
      expect(a.status).toBe(400);
      expect(a.body).toMatchObject({ error: 'INVALID_PARAM', param, in: 'body' });
      expect((await received(name)).search_count).toBe(0);
    });

    it.each([
      ['match=half', 'match'],
      ['delay_ms=soon', 'delay_ms'],
      ['outcome=lost', 'outcome'],
      ['page=2', 'page'],
    ])('answers 400 naming the query parameter for %s', async (query, param) => {
      const a = await call(endpoint(baseUrl(partner(), query), 'search'), { body: searchBody(OFFERS) });
      expect(a.status).toBe(400);
      expect(a.body).toMatchObject({ error: 'INVALID_PARAM', param, in: 'query' });
    });
  });

  describe('submit', () => {
    const submitBody = (partnerResultId = 'pr_0123456789abcdef01234567') => ({
      partner_result_id: partnerResultId,
      search_id: randomUUID(),
      lead: sampleLead(),
      program_id: 'bsn',
      answers: { hs_grad_year: '2015' },
    });

    it.each([
      ['accept', 200, { result: 'accepted', id: expect.stringMatching(/^partner\d+-[0-9a-f]{12}$/) }],
      ['reject', 200, { result: 'rejected', reason: expect.any(String) }],
      ['duplicate', 200, { result: 'duplicate', reason: 'Lead already exists' }],
      ['error', 500, expect.anything()],
    ])('answers outcome=%s like a school system', async (outcome, status, body) => {
      const a = await call(endpoint(baseUrl(partner(), `outcome=${outcome}&match=all&delay_ms=0`), 'submit'), { body: submitBody() });
      expect(a.status).toBe(status);
      expect(a.body).toEqual(body);
    });

    it('passes the reason through, honours delay_ms, and records the submit', async () => {
      const name = partner();
      const body = submitBody();
      const a = await call(endpoint(baseUrl(name, 'outcome=reject&reason=Student%20not%20in%20footprint&delay_ms=300'), 'submit'), {
        body,
      });
      expect(a.body).toEqual({ result: 'rejected', reason: 'Student not in footprint' });
      expect(a.ms).toBeGreaterThanOrEqual(280);
      const list = await received(name);
      expect(list.count).toBe(1);
      expect(list.leads[0]).toMatchObject({ body, outcome: 'reject', delay_ms: 300 });
    });

    it('holds outcome=timeout open, records it, and replays Idempotency-Keys like a school', async () => {
      const name = partner();
      const controller = new AbortController();
      const held = expectNoAnswer(
        call(endpoint(baseUrl(name, 'outcome=timeout'), 'submit'), { body: submitBody(), signal: controller.signal }),
      );
      await sleep(200);
      controller.abort();
      await held;
      const first = await call(endpoint(baseUrl(name), 'submit'), { body: submitBody(), headers: { 'idempotency-key': 'sub-1' } });
      const again = await call(endpoint(baseUrl(name), 'submit'), { body: submitBody(), headers: { 'idempotency-key': 'sub-1' } });
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      const list = await received(name);
      expect(list.leads.map((l: { outcome: string }) => l.outcome)).toEqual(['timeout', 'accept']);
    });

    it('submits a result found by a search', async () => {
      const name = partner();
      const base = baseUrl(name, 'delay_ms=0&match=all&outcome=accept');
      const search = await call(endpoint(base, 'search'), { body: searchBody(['westlake-001']) });
      const result = search.body.results[0];
      const a = await call(endpoint(base, 'submit'), {
        body: {
          partner_result_id: result.partner_result_id,
          search_id: search.body.search_id,
          lead: sampleLead(),
          program_id: result.programs[0].value,
          answers: {},
        },
      });
      expect(a.body.result).toBe('accepted');
      expect((await received(name)).leads[0].body.partner_result_id).toBe(result.partner_result_id);
    });

    it.each([
      [{ search_id: 'x' }, 'partner_result_id'],
      [{ partner_result_id: 'pr_1' }, 'search_id'],
      [{ partner_result_id: 'pr_1', search_id: 'x', program_id: 5 }, 'program_id'],
      [{ partner_result_id: 'pr_1', search_id: 'x', answers: [] }, 'answers'],
    ])('answers 400 naming the body field for %j and records nothing', async (body, param) => {
      const name = partner();
      const a = await call(endpoint(baseUrl(name), 'submit'), { body });
      expect(a.status).toBe(400);
      expect(a.body).toMatchObject({ error: 'INVALID_PARAM', param, in: 'body' });
      expect((await received(name)).count).toBe(0);
    });

    it("clears a partner's submits and searches on DELETE", async () => {
      const name = partner();
      await call(endpoint(baseUrl(name), 'search'), { body: searchBody(OFFERS) });
      await call(endpoint(baseUrl(name), 'submit'), { body: submitBody() });
      const cleared = await call(`${sandbox.url}/partners/${name}/received`, { method: 'DELETE' });
      expect(cleared.body).toEqual({ partner: name, cleared: 1, searches_cleared: 1 });
      expect(await received(name)).toMatchObject({ count: 0, search_count: 0 });
    });
  });
});
