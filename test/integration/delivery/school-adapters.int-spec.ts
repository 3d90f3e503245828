import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeliverySettings, JsonDeliverySettings } from '@lr/domain';
import type { RunningSandbox } from '../../../apps/sandbox/src/sandbox-app';
import { JsonSchoolAdapter } from '../../../apps/delivery/src/schools/json-school.adapter';
import { schoolLeadDocument } from '../../../libs/domain/src';
import type { SchoolDelivery } from '../../../apps/delivery/src/schools/school-adapter';
import { deliverWithDeadline, SchoolAdapters } from '../../../apps/delivery/src/schools/school-adapters';
import { sampleDelivery } from '../../support/school-delivery';
import { SchoolHttpError, SchoolProtocolError, SchoolTimeoutError } from '../../../apps/delivery/src/schools/school-errors';
import { SandboxSchoolAdapter } from '../../../apps/delivery/src/schools/sandbox-school.adapter';
import { MAX_SCHOOL_ANSWER_BYTES } from '../../../apps/delivery/src/schools/school-http';
import { startSandbox } from '../sandbox/sandbox-harness';

/** A request a local test server got. */
interface Got {
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** A tiny HTTP server answering with `handler`, recording what it got. */
async function localServer(handler: (got: Got, res: ServerResponse) => void): Promise<{ url: string; got: Got[]; close(): Promise<void> }> {
  const got: Got[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const g = { url: req.url ?? '', headers: req.headers, body: text ? (JSON.parse(text) as unknown) : null };
      got.push(g);
      handler(g, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    got,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // a held answer must not keep the test waiting
      }),
  };
}

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const failure = (p: Promise<unknown>) =>
  p.then(
    (v) => {
      throw new Error(`expected a failure, got ${JSON.stringify(v)}`);
    },
    (e: unknown) => e as Error,
  );

describe('school adapters against the sandbox school systems', () => {
  let sandbox: RunningSandbox;
  const adapters = new SchoolAdapters();
  let n = 0;
  /** A sandbox school of its own per test, so receipts never mix. */
  const school = () => `delivery-school-${++n}-${randomUUID().slice(0, 8)}`;
  const settings = (name: string, query: string, timeoutMs = 2000): DeliverySettings => ({
    adapter: 'sandbox',
    url: `${sandbox.url}/schools/${name}/leads?${query}`,
    timeout_ms: timeoutMs,
  });
  const delivery = (s: DeliverySettings, leadId = randomUUID()): SchoolDelivery => sampleDelivery(s, { leadId });
  const received = async (name: string) => {
    const res = await fetch(`${sandbox.url}/schools/${name}/received`);
    return (await res.json()) as {
      total_received: number;
      leads: Array<{ outcome: string; headers: Record<string, string>; body: unknown }>;
    };
  };

  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('delivers the lead document with the lead id as Idempotency-Key, and reads accepted', async () => {
    const name = school();
    const d = delivery(settings(name, 'outcome=accept&delay_ms=50'));
    const outcome = await deliverWithDeadline(adapters, d);
    expect(outcome).toEqual({ kind: 'accepted', buyerLeadId: expect.stringMatching(new RegExp(`^${name}-[0-9a-f]{12}$`)) });
    const got = await received(name);
    expect(got.total_received).toBe(1);
    expect(got.leads[0].headers['idempotency-key']).toBe(d.leadId);
    expect(got.leads[0].body).toEqual(JSON.parse(JSON.stringify(schoolLeadDocument(d))));
  });

  it("reads rejected with the school's own reason (for operators) and duplicate", async () => {
    const reason = 'Program full for fall term';
    await expect(
      deliverWithDeadline(adapters, delivery(settings(school(), `outcome=reject&reason=${encodeURIComponent(reason)}`))),
    ).resolves.toEqual({
      kind: 'rejected',
      buyerReason: reason,
    });
    await expect(deliverWithDeadline(adapters, delivery(settings(school(), 'outcome=duplicate')))).resolves.toEqual({
      kind: 'duplicate',
      buyerReason: 'Lead already exists',
    });
  });

  it('throws SchoolHttpError on the sandbox 500; the lead reached the school', async () => {
    const error = await failure(deliverWithDeadline(adapters, delivery(settings(school(), 'outcome=error'))));
    expect(error).toBeInstanceOf(SchoolHttpError);
    expect(error).toMatchObject({ status: 500, notReceived: false, detail: 'HTTP 500' });
  });

  it('throws SchoolTimeoutError at timeout_ms when the school never answers; the school did receive it', async () => {
    const name = school();
    const started = Date.now();
    const error = await failure(deliverWithDeadline(adapters, delivery(settings(name, 'outcome=timeout', 300))));
    expect(error).toBeInstanceOf(SchoolTimeoutError);
    expect(error).toMatchObject({ afterMs: 300, code: 'SCHOOL_TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(300 + 500);
    const got = await received(name);
    expect(got.leads.map((l) => l.outcome)).toEqual(['timeout']);
  });

  it('gets the first answer again for a second delivery of the same lead, and the school holds the lead once', async () => {
    const name = school();
    const d = delivery(settings(name, 'outcome=accept'));
    const first = await deliverWithDeadline(adapters, d);
    const again = await deliverWithDeadline(adapters, d);
    expect(again).toEqual(first);
    const rejected = delivery(settings(name, 'outcome=reject'));
    const firstRejection = await deliverWithDeadline(adapters, rejected);
    // Even with another outcome in the URL: the school already settled this lead.
    await expect(deliverWithDeadline(adapters, { ...rejected, settings: settings(name, 'outcome=accept') })).resolves.toEqual(
      firstRejection,
    );
    const got = await received(name);
    expect(got.total_received).toBe(2);
    expect(got.leads.map((l) => l.headers['idempotency-key'])).toEqual([d.leadId, rejected.leadId]);
  });

  it('processes a retry after a 500 afresh (the school did not settle the lead)', async () => {
    const name = school();
    const d = delivery(settings(name, 'outcome=error'));
    await expect(deliverWithDeadline(adapters, d)).rejects.toBeInstanceOf(SchoolHttpError);
    await expect(deliverWithDeadline(adapters, { ...d, settings: settings(name, 'outcome=accept') })).resolves.toMatchObject({
      kind: 'accepted',
    });
    expect((await received(name)).leads.map((l) => l.outcome)).toEqual(['error', 'accept']);
  });

  it('throws SchoolHttpError 400 naming the parameter for a typo in the catalog URL', async () => {
    const error = await failure(deliverWithDeadline(adapters, delivery(settings(school(), 'outcome=acept'))));
    expect(error).toMatchObject({ status: 400, detail: 'HTTP 400: INVALID_PARAM outcome' });
  });

  it('reads the sandbox protocol with the json adapter and no rules too', async () => {
    const name = school();
    const s: JsonDeliverySettings = { adapter: 'json', url: `${sandbox.url}/schools/${name}/leads?outcome=duplicate` };
    await expect(deliverWithDeadline(adapters, delivery(s))).resolves.toEqual({ kind: 'duplicate', buyerReason: 'Lead already exists' });
  });
});

describe('school adapters against a local school API', () => {
  it('posts the mapped body with secret headers from the environment and reads the answer by its rules', async () => {
    const server = await localServer((got, res) => {
      const email = (got.body as { applicant: { email: string } }).applicant.email;
      if (email === 'dupe@example.com') reply(res, 409, { message: 'Student already exists: dupe@example.com' });
      else if (email === 'no@example.com') reply(res, 200, { status: 'declined', message: 'Not in our area' });
      else reply(res, 201, { status: 'ok', data: { id: 77 } });
    });
    try {
      const s: JsonDeliverySettings = {
        adapter: 'json',
        url: `${server.url}/v1/leads?vendor=lr`,
        timeout_ms: 2000,
        headers: { Authorization: 'Bearer ${env:TEST_SCHOOL_TOKEN}' },
        field_map: {
          'applicant.email': 'lead.personal.email',
          'applicant.grad_year': 'answers.hs_grad_year',
          ref: 'lead_id',
          source: '=lead-router',
        },
        response_rules: {
          accepted: { path: 'status', in: ['ok'] },
          duplicate: { http_status: [409] },
          buyer_lead_id_path: 'data.id',
          reason_path: 'message',
        },
      };
      const adapters = new SchoolAdapters({ json: new JsonSchoolAdapter({ TEST_SCHOOL_TOKEN: 'tok-123' }) });
      const d = sampleDelivery(s, { leadId: randomUUID() });
      await expect(deliverWithDeadline(adapters, d)).resolves.toEqual({ kind: 'accepted', buyerLeadId: '77' });
      expect(server.got[0]).toMatchObject({
        url: '/v1/leads?vendor=lr',
        body: { applicant: { email: 'ada@example.com', grad_year: '2015' }, ref: d.leadId, source: 'lead-router' },
      });
      expect(server.got[0].headers).toMatchObject({
        authorization: 'Bearer tok-123',
        'idempotency-key': d.leadId,
        'content-type': 'application/json',
      });

      const as = (email: string) => sampleDelivery(s, { leadId: randomUUID(), lead: { personal: { email } } });
      await expect(deliverWithDeadline(adapters, as('dupe@example.com'))).resolves.toEqual({
        kind: 'duplicate',
        buyerReason: 'Student already exists: dupe@example.com',
      });
      await expect(deliverWithDeadline(adapters, as('no@example.com'))).resolves.toEqual({
        kind: 'rejected',
        buyerReason: 'Not in our area',
      });
    } finally {
      await server.close();
    }
  });

  it('throws SchoolHttpError with notReceived when the connection is refused', async () => {
    const s: DeliverySettings = { adapter: 'sandbox', url: `http://127.0.0.1:${await closedPort()}/schools/x/leads` };
    const error = await failure(deliverWithDeadline(new SchoolAdapters(), sampleDelivery(s)));
    expect(error).toBeInstanceOf(SchoolHttpError);
    expect(error).toMatchObject({ status: null, notReceived: true, detail: 'no HTTP answer: ECONNREFUSED' });
  });

  it('refuses a redirect: the target never gets the lead', async () => {
    const target = await localServer((_, res) => reply(res, 200, { result: 'accepted', id: 'elsewhere-1' }));
    const redirecting = await localServer((_, res) => reply(res, 307, '', { location: `${target.url}/steal` }));
    try {
      for (const adapter of ['sandbox', 'json'] as const) {
        const error = await failure(
          deliverWithDeadline(new SchoolAdapters(), sampleDelivery({ adapter, url: `${redirecting.url}/leads` })),
        );
        expect(error).toBeInstanceOf(SchoolHttpError);
        expect(error).toMatchObject({ status: null, notReceived: false, detail: 'no HTTP answer: REDIRECT_REFUSED' });
      }
      expect(redirecting.got).toHaveLength(2);
      expect(target.got).toHaveLength(0);
    } finally {
      await Promise.all([target.close(), redirecting.close()]);
    }
  });

  it('refuses an answer over 64 KB as a SchoolProtocolError', async () => {
    const server = await localServer((_, res) =>
      reply(res, 200, { result: 'accepted', id: 'x', pad: 'x'.repeat(MAX_SCHOOL_ANSWER_BYTES) }),
    );
    try {
      const error = await failure(
        deliverWithDeadline(new SchoolAdapters(), sampleDelivery({ adapter: 'sandbox', url: `${server.url}/leads` })),
      );
      expect(error).toEqual(new SchoolProtocolError(`the answer is larger than ${MAX_SCHOOL_ANSWER_BYTES} bytes`));
    } finally {
      await server.close();
    }
  });

  it('aborts a slow answer at the deadline with SchoolTimeoutError', async () => {
    const server = await localServer((_, res) => setTimeout(() => reply(res, 200, { result: 'accepted' }), 1000).unref());
    try {
      const error = await failure(
        deliverWithDeadline(
          new SchoolAdapters({ sandbox: new SandboxSchoolAdapter() }),
          sampleDelivery({ adapter: 'sandbox', url: `${server.url}/leads` }),
          200,
        ),
      );
      expect(error).toEqual(new SchoolTimeoutError(200));
    } finally {
      await server.close();
    }
  });
});
