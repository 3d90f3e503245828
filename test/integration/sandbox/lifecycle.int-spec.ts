import { RunningSandbox } from '../../../apps/sandbox/src/sandbox-app';
import { call, expectNoAnswer, sampleLead, sleep, startSandbox } from './sandbox-harness';

const searchBody = (ids: string[]) => ({
  search_id: 'search-1',
  offers: ids.map((external_id) => ({ external_id })),
  lead: sampleLead(),
  tracking: {},
  is_test: true,
});
const submitBody = () => ({ partner_result_id: 'pr_1', search_id: 'search-1', lead: sampleLead(), program_id: 'bsn', answers: {} });

describe('sandbox app', () => {
  describe('running', () => {
    let sandbox: RunningSandbox;

    beforeAll(async () => {
      sandbox = await startSandbox();
    });
    afterAll(async () => {
      await sandbox.close();
    });

    it('listens on the port it was given (0: a free one) and reports it', () => {
      expect(sandbox.port).toBeGreaterThan(0);
      expect(sandbox.url).toBe(`http://127.0.0.1:${sandbox.port}`);
    });

    it('is live and ready without dependencies, and lists its routes at /', async () => {
      expect((await call(`${sandbox.managementUrl}/health/live`)).status).toBe(200);
      const ready = await call(`${sandbox.managementUrl}/health/ready`);
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('ok');
      const index = await call(`${sandbox.url}/`);
      expect(index.body.routes).toEqual(expect.arrayContaining([expect.stringContaining('/schools/<name>/leads')]));
    });

    it('summarizes what every school and partner received at GET /received, and forgets all on DELETE', async () => {
      await call(`${sandbox.url}/received`, { method: 'DELETE' });
      await call(`${sandbox.url}/schools/northfield/leads`, { body: sampleLead(), headers: { 'idempotency-key': 'once' } });
      await call(`${sandbox.url}/schools/northfield/leads?outcome=error`, { body: sampleLead() });
      await call(`${sandbox.url}/schools/eastgate/leads?outcome=reject`, { body: sampleLead() });
      await call(`${sandbox.url}/partners/alpha/search`, { body: searchBody(['westlake-001']) });
      await call(`${sandbox.url}/partners/alpha/submit`, { body: submitBody() });
      const summary = (await call(`${sandbox.url}/received`)).body;
      expect(summary).toEqual({
        schools: {
          northfield: { count: 2, total_received: 2, last_received_at: expect.any(String) },
          eastgate: { count: 1, total_received: 1, last_received_at: expect.any(String) },
        },
        partners: {
          alpha: { count: 1, total_received: 1, last_received_at: expect.any(String), search_count: 1, search_total_received: 1 },
        },
        count: 4,
        search_count: 1,
      });
      const cleared = await call(`${sandbox.url}/received`, { method: 'DELETE' });
      expect(cleared.status).toBe(200);
      expect((await call(`${sandbox.url}/received`)).body).toEqual({ schools: {}, partners: {}, count: 0, search_count: 0 });
      await call(`${sandbox.url}/schools/northfield/leads`, { body: sampleLead(), headers: { 'idempotency-key': 'once' } });
      expect((await call(`${sandbox.url}/schools/northfield/received`)).body.count).toBe(1);
    });

    it('exposes request counts and frees a held request when its client gives up', async () => {
      const controller = new AbortController();
      const held = expectNoAnswer(
        call(`${sandbox.url}/schools/metrics-school/leads?outcome=timeout`, { body: sampleLead(), signal: controller.signal }),
      );
      await sleep(200);
      expect(await metric('sandbox_pending_requests')).toBe(1);
      controller.abort();
      await held;
      await sleep(100);
      expect(await metric('sandbox_pending_requests')).toBe(0);
      const text = (await fetch(`${sandbox.managementUrl}/metrics`).then((r) => r.text())) as string;
      expect(text).toMatch(/sandbox_requests_total\{[^}]*endpoint="school_lead"[^}]*outcome="timeout"[^}]*\} [1-9]/);
    });

    async function metric(name: string): Promise<number> {
      const text = await fetch(`${sandbox.managementUrl}/metrics`).then((r) => r.text());
      const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
      return Number(line?.split(' ').pop());
    }
  });

  it('keeps only the newest receipts and Idempotency-Keys per name (bounded memory)', async () => {
    const sandbox = await startSandbox({ maxReceiptsPerName: 3, maxIdempotencyKeysPerName: 2 });
    try {
      for (let i = 0; i < 5; i++) await call(`${sandbox.url}/schools/small/leads`, { body: { i } });
      const list = (await call(`${sandbox.url}/schools/small/received`)).body;
      expect(list.leads.map((l: { body: { i: number } }) => l.body.i)).toEqual([2, 3, 4]);
      expect(list).toMatchObject({ count: 3, total_received: 5 });
      const ids: Record<string, string> = {};
      for (const key of ['a', 'b', 'c']) {
        ids[key] = (await call(`${sandbox.url}/schools/keys/leads`, { body: {}, headers: { 'idempotency-key': key } })).body.id;
      }
      const c = await call(`${sandbox.url}/schools/keys/leads`, { body: {}, headers: { 'idempotency-key': 'c' } });
      expect(c.body.id).toBe(ids.c);
      const a = await call(`${sandbox.url}/schools/keys/leads`, { body: {}, headers: { 'idempotency-key': 'a' } });
      expect(a.body.id).not.toBe(ids.a);
    } finally {
      await sandbox.close();
    }
  });

  it('releases held and delayed requests at once when it closes', async () => {
    const sandbox = await startSandbox();
    // Handlers attached at once: these fail while close() is awaited.
    const held = expectNoAnswer(call(`${sandbox.url}/schools/slow/leads?outcome=timeout`, { body: sampleLead(), timeoutMs: 30_000 }));
    const heldSearch = expectNoAnswer(
      call(`${sandbox.url}/partners/slow/search?outcome=timeout`, { body: searchBody(['a-1']), timeoutMs: 30_000 }),
    );
    const delayed = call(`${sandbox.url}/schools/slow/leads?delay_ms=60000`, { body: sampleLead(), timeoutMs: 30_000 });
    await sleep(300);
    const started = Date.now();
    await sandbox.close();
    expect(Date.now() - started).toBeLessThan(2000);
    const answer = await delayed;
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ error: 'SANDBOX_SHUTTING_DOWN' });
    for (const failure of [held, heldSearch]) {
      const error = await failure;
      expect(error.name).not.toBe('TimeoutError');
      expect(error.name).not.toBe('AbortError');
    }
  });
});
