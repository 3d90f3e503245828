import { RunningSandbox } from '../../../apps/sandbox/src/sandbox-app';
import { call, expectNoAnswer, sampleLead, sleep, startSandbox } from './sandbox-harness';

describe('sandbox school systems', () => {
  let sandbox: RunningSandbox;
  let n = 0;
  /** A school name of its own per test, so receipts never mix. */
  const school = () => `school${++n}`;
  const leads = (name: string, query = '') => `${sandbox.url}/schools/${name}/leads${query ? `?${query}` : ''}`;
  const received = (name: string) => call(`${sandbox.url}/schools/${name}/received`).then((a) => a.body);

  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  describe('outcomes', () => {
    it('accepts by default and with outcome=accept, with a school-side id', async () => {
      const name = school();
      const a = await call(leads(name), { body: sampleLead() });
      const b = await call(leads(name, 'outcome=accept'), { body: sampleLead() });
      for (const answer of [a, b]) {
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual({ result: 'accepted', id: expect.stringMatching(new RegExp(`^${name}-[0-9a-f]{12}$`)) });
      }
      expect(a.body.id).not.toBe(b.body.id);
    });

    it("rejects with the school's own reason, passed through as is", async () => {
      const name = school();
      const reason = 'Program full for fall term; applicant must reapply';
      const a = await call(leads(name, `outcome=reject&reason=${encodeURIComponent(reason)}`), { body: sampleLead() });
      expect(a.status).toBe(200);
      expect(a.body).toEqual({ result: 'rejected', reason });
    });

    it('rejects with a default school-ish reason when none is given', async () => {
      const a = await call(leads(school(), 'outcome=reject'), { body: sampleLead() });
      expect(a.status).toBe(200);
      expect(a.body.result).toBe('rejected');
      expect(a.body.reason).toEqual(expect.stringMatching(/\w{3,}/));
    });

    it('answers duplicate', async () => {
      const a = await call(leads(school(), 'outcome=duplicate'), { body: sampleLead() });
      expect(a.status).toBe(200);
      expect(a.body).toEqual({ result: 'duplicate', reason: 'Lead already exists' });
    });

    it('answers error with HTTP 500', async () => {
      const a = await call(leads(school(), 'outcome=error'), { body: sampleLead() });
      expect(a.status).toBe(500);
    });

    it('never answers outcome=timeout until the client gives up, and records the lead', async () => {
      const name = school();
      const controller = new AbortController();
      const pending = expectNoAnswer(call(leads(name, 'outcome=timeout'), { body: sampleLead(), signal: controller.signal }));
      await sleep(400);
      controller.abort();
      const error = await pending;
      expect(error.name).toBe('AbortError');
      const list = await received(name);
      expect(list.count).toBe(1);
      expect(list.leads[0].outcome).toBe('timeout');
    });

    it("lets X-Sandbox-Outcome override the URL's outcome per request", async () => {
      const name = school();
      const a = await call(leads(name, 'outcome=accept'), { body: sampleLead(), headers: { 'x-sandbox-outcome': 'duplicate' } });
      expect(a.body.result).toBe('duplicate');
      const b = await call(leads(name, 'outcome=accept&reason=Too%20late'), {
        body: sampleLead(),
        headers: { 'X-Sandbox-Outcome': 'reject' },
      });
      expect(b.body).toEqual({ result: 'rejected', reason: 'Too late' });
      const c = await call(leads(name, 'outcome=error'), { body: sampleLead(), headers: { 'X-Sandbox-Outcome': 'accept' } });
      expect(c.status).toBe(200);
      const list = await received(name);
      expect(list.leads.map((l: { outcome: string }) => l.outcome)).toEqual(['duplicate', 'reject', 'accept']);
      expect(list.leads[0].headers['x-sandbox-outcome']).toBe('duplicate');
    });
  });

  describe('delay_ms', () => {
    it('answers after delay_ms, not before', async () => {
      const a = await call(leads(school(), 'outcome=accept&delay_ms=400'), { body: sampleLead() });
      expect(a.status).toBe(200);
      expect(a.ms).toBeGreaterThanOrEqual(380);
      expect(a.ms).toBeLessThan(2500);
    });

    it('delays every outcome, the 500 included', async () => {
      const a = await call(leads(school(), 'outcome=error&delay_ms=300'), { body: sampleLead() });
      expect(a.status).toBe(500);
      expect(a.ms).toBeGreaterThanOrEqual(280);
    });

    it('answers at once without delay_ms', async () => {
      const a = await call(leads(school()), { body: sampleLead() });
      expect(a.ms).toBeLessThan(250);
    });
  });

  describe('received records', () => {
    it('records every lead before answering, whatever the outcome, with body and headers', async () => {
      const name = school();
      const before = Date.now();
      for (const outcome of ['accept', 'reject', 'duplicate', 'error']) {
        await call(leads(name, `outcome=${outcome}`), {
          body: sampleLead(`${outcome}@example.com`),
          headers: { 'x-request-id': `req-${outcome}-0001`, 'idempotency-key': `key-${outcome}` },
        });
      }
      const list = await received(name);
      expect(list.school).toBe(name);
      expect(list.count).toBe(4);
      expect(list.total_received).toBe(4);
      expect(list.leads.map((l: { body: { email: string } }) => l.body.email)).toEqual([
        'accept@example.com',
        'reject@example.com',
        'duplicate@example.com',
        'error@example.com',
      ]);
      const first = list.leads[0];
      expect(Date.parse(first.received_at)).toBeGreaterThanOrEqual(before - 5);
      expect(first.headers).toEqual({ 'x-request-id': 'req-accept-0001', 'idempotency-key': 'key-accept' });
      expect(first.request_id).toBe('req-accept-0001');
      expect(first.body).toEqual(sampleLead('accept@example.com'));
    });

    it('records a delayed lead as soon as it arrives, before the answer', async () => {
      const name = school();
      const pending = call(leads(name, 'delay_ms=600'), { body: sampleLead() });
      await sleep(200);
      expect((await received(name)).count).toBe(1);
      expect((await pending).status).toBe(200);
    });

    it('keeps schools apart, clears one on DELETE, and limits the list on ?limit=', async () => {
      const a = school();
      const b = school();
      for (let i = 0; i < 3; i++) await call(leads(a), { body: { i } });
      await call(leads(b), { body: { i: 0 } });
      const limited = await call(`${sandbox.url}/schools/${a}/received?limit=2`);
      expect(limited.body.leads.map((l: { body: { i: number } }) => l.body.i)).toEqual([1, 2]);
      expect(limited.body.total_received).toBe(3);
      const cleared = await call(`${sandbox.url}/schools/${a}/received`, { method: 'DELETE' });
      expect(cleared.status).toBe(200);
      expect(cleared.body).toEqual({ school: a, cleared: 3 });
      expect((await received(a)).count).toBe(0);
      expect((await received(b)).count).toBe(1);
    });

    it('shows an empty list for a school that received nothing', async () => {
      expect(await received('never-called')).toEqual({ school: 'never-called', leads: [], count: 0, total_received: 0 });
    });
  });

  describe('Idempotency-Key', () => {
    it('answers a repeated key with the first answer and records it once', async () => {
      const name = school();
      const first = await call(leads(name), { body: sampleLead(), headers: { 'idempotency-key': 'k-1' } });
      const again = await call(leads(name), { body: sampleLead(), headers: { 'idempotency-key': 'k-1' } });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const other = await call(leads(name), { body: sampleLead(), headers: { 'idempotency-key': 'k-2' } });
      expect(other.body.id).not.toBe(first.body.id);
      expect((await received(name)).count).toBe(2);
    });

    it('replays the first answer even when the repeat asks for another outcome', async () => {
      const name = school();
      const first = await call(leads(name, 'outcome=reject&reason=No%20seats'), {
        body: sampleLead(),
        headers: { 'idempotency-key': 'k' },
      });
      const again = await call(leads(name, 'outcome=accept'), {
        body: sampleLead(),
        headers: { 'idempotency-key': 'k', 'x-sandbox-outcome': 'accept' },
      });
      expect(first.body).toEqual({ result: 'rejected', reason: 'No seats' });
      expect(again.body).toEqual(first.body);
      expect((await received(name)).count).toBe(1);
    });

    it('does not remember a key whose request failed: a retry is processed and recorded', async () => {
      const name = school();
      const failed = await call(leads(name, 'outcome=error'), { body: sampleLead(), headers: { 'idempotency-key': 'retry-me' } });
      expect(failed.status).toBe(500);
      const retry = await call(leads(name, 'outcome=error'), {
        body: sampleLead(),
        headers: { 'idempotency-key': 'retry-me', 'x-sandbox-outcome': 'accept' },
      });
      expect(retry.status).toBe(200);
      expect(retry.body.result).toBe('accepted');
      const controller = new AbortController();
      const held = expectNoAnswer(
        call(leads(name, 'outcome=timeout'), { body: sampleLead(), headers: { 'idempotency-key': 'held' }, signal: controller.signal }),
      );
      await sleep(200);
      controller.abort();
      await held;
      await sleep(50);
      const afterTimeout = await call(leads(name), { body: sampleLead(), headers: { 'idempotency-key': 'held' } });
      expect(afterTimeout.body.result).toBe('accepted');
      expect((await received(name)).leads.map((l: { outcome: string }) => l.outcome)).toEqual(['error', 'accept', 'timeout', 'accept']);
    });

    it('makes a repeat that arrives while the first is still answering wait for that answer', async () => {
      const name = school();
      const first = call(leads(name, 'delay_ms=500'), { body: sampleLead(), headers: { 'idempotency-key': 'race' } });
      await sleep(100);
      const second = await call(leads(name, 'delay_ms=0'), { body: sampleLead(), headers: { 'idempotency-key': 'race' } });
      expect(second.body).toEqual((await first).body);
      expect(second.ms).toBeGreaterThanOrEqual(300);
      expect((await received(name)).count).toBe(1);
    });

    it('processes a lead whose caller hung up during its delay: a repeat of the key gets the answer it would have had, with no second receipt', async () => {
      const name = school();
      const controller = new AbortController();
      const cut = expectNoAnswer(
        call(leads(name, 'outcome=reject&reason=Full&delay_ms=2000'), {
          body: sampleLead(),
          headers: { 'idempotency-key': 'cut' },
          signal: controller.signal,
        }),
      );
      await sleep(200);
      controller.abort();
      await cut;
      await sleep(50);
      const again = await call(leads(name, 'outcome=accept'), { body: sampleLead(), headers: { 'idempotency-key': 'cut' } });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ result: 'rejected', reason: 'Full' });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect((await received(name)).count).toBe(1);
    });

    it('keeps keys per school and forgets them when the school is cleared', async () => {
      const a = school();
      const b = school();
      const ta = await call(leads(a), { body: sampleLead(), headers: { 'idempotency-key': 'same' } });
      const tb = await call(leads(b), { body: sampleLead(), headers: { 'idempotency-key': 'same' } });
      expect(ta.body.id).not.toBe(tb.body.id);
      await call(`${sandbox.url}/schools/${a}/received`, { method: 'DELETE' });
      const fresh = await call(leads(a), { body: sampleLead(), headers: { 'idempotency-key': 'same' } });
      expect(fresh.body.id).not.toBe(ta.body.id);
      expect((await received(a)).count).toBe(1);
    });
  });

  describe('bad requests', () => {
    it.each([
      ['outcome=maybe', 'outcome'],
      ['outcome=ACCEPT', 'outcome'],
      ['delay_ms=abc', 'delay_ms'],
      ['delay_ms=-5', 'delay_ms'],
      ['delay_ms=1.5', 'delay_ms'],
      ['delay_ms=1e3', 'delay_ms'],
      ['delay_ms=999999999', 'delay_ms'],
      ['delay_ms=', 'delay_ms'],
      ['reason=', 'reason'],
      [`reason=${'x'.repeat(501)}`, 'reason'],
      ['outcome=accept&outcome=reject', 'outcome'],
      ['match=all', 'match'],
      ['outcom=reject', 'outcom'],
    ])('answers 400 naming the parameter for %s', async (query, param) => {
      const name = school();
      const a = await call(leads(name, query), { body: sampleLead() });
      expect(a.status).toBe(400);
      expect(a.body).toEqual({ error: 'INVALID_PARAM', param, in: 'query', message: expect.any(String) });
      expect(a.body.message).toContain(param);
      expect((await received(name)).count).toBe(0);
    });

    it('answers 400 for a bad X-Sandbox-Outcome or Idempotency-Key header', async () => {
      const name = school();
      const a = await call(leads(name), { body: sampleLead(), headers: { 'x-sandbox-outcome': 'later' } });
      expect(a.status).toBe(400);
      expect(a.body).toMatchObject({ error: 'INVALID_PARAM', param: 'X-Sandbox-Outcome', in: 'header' });
      const b = await call(leads(name), { body: sampleLead(), headers: { 'idempotency-key': 'has space' } });
      expect(b.status).toBe(400);
      expect(b.body).toMatchObject({ param: 'Idempotency-Key', in: 'header' });
      expect((await received(name)).count).toBe(0);
    });

    it('answers 400 for a bad school name and a bad limit', async () => {
      const a = await call(`${sandbox.url}/schools/${'x'.repeat(65)}/leads`, { body: sampleLead() });
      expect(a.status).toBe(400);
      expect(a.body).toMatchObject({ param: 'school', in: 'path' });
      const b = await call(`${sandbox.url}/schools/x/received?limit=0`);
      expect(b.status).toBe(400);
      expect(b.body).toMatchObject({ param: 'limit', in: 'query' });
    });
  });
});
