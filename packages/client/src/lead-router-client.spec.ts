import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LeadsRequest, SearchRequest } from './generated/types.gen';
import { LeadRouterClient } from './lead-router-client';
import { retryAfterMs, retryDelayMs } from './retry';

/**
 * The flow helper against a real HTTP server on 127.0.0.1 that answers each
 * path from a script (status, headers, body) and records every request with
 * the time it came: what is sent again, after how long, and what never is.
 */

interface Scripted {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface Seen {
  method: string;
  path: string;
  at: number;
  headers: IncomingHttpHeaders;
  body: unknown;
}

class ScriptedGateway {
  readonly seen: Seen[] = [];
  private readonly scripts = new Map<string, Scripted[]>();
  private server!: Server;
  url = '';

  /** Answers `METHOD /path` with these answers in turn; the last one repeats. */
  on(route: string, ...answers: Scripted[]): this {
    this.scripts.set(route, answers);
    return this;
  }

  requests(route: string): Seen[] {
    return this.seen.filter((s) => `${s.method} ${s.path}` === route);
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let text = '';
      req.on('data', (d: Buffer) => (text += d.toString()));
      req.on('end', () => {
        const route = `${req.method} ${req.url}`;
        this.seen.push({
          method: req.method!,
          path: req.url!,
          at: Date.now(),
          headers: req.headers,
          body: text ? JSON.parse(text) : undefined,
        });
        const script = this.scripts.get(route) ?? [
          { status: 404, body: { code: 'NOT_FOUND', status: 'invalid', reason: `No route ${route}` } },
        ];
        const answer = script.length > 1 ? script.shift()! : script[0];
        // Status 0: the connection breaks before any answer (the gateway died mid-request).
        if (answer.status === 0) return void req.socket.destroy();
        res.writeHead(answer.status, { 'Content-Type': 'application/json; charset=utf-8', ...answer.headers });
        res.end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const SEARCH_ID = '7f1b1b7e-3c55-4f0e-9a8e-2f3c1d4e5a6b';
const KEY = 'lr_test-key';
const ids = { svc_campaign_id: '1f6c2d9e-0b7a-4c1e-8d3f-5a6b7c8d9e0f', svc_affiliate_id: '2a7d3e0f-1c8b-4d2f-9e4a-6b7c8d9e0f1a' };
const searchBody: SearchRequest = { ...ids, lead: { email: 'ada@example.com' }, tracking: { ip_address: '73.12.44.10' } };
const submitBody: LeadsRequest = { ...ids, svc_result_id: 'r-1', search_lead_id: SEARCH_ID, tcpa_consent: true };

const entry = (id: string) => ({ svc_result_id: id, offer: { id }, programs: [{ value: 'gen', label: 'General' }], form_fields: [] });
const searchAnswer = (done: boolean, offers: string[], pollAfterMs?: number) => ({
  code: 'OK',
  status: 'accepted',
  reason: 'OK',
  success: true,
  svc_lead_id: SEARCH_ID,
  processing_done: done,
  ...(pollAfterMs === undefined ? {} : { poll_after_ms: pollAfterMs }),
  accepted_count: 0,
  max_accepted_submissions: 3,
  true_exclusive_accepted: false,
  offers: offers.map(entry),
});
const decision = (code: string, status: string) => ({
  code,
  status,
  reason: code,
  success: status === 'accepted' || status === 'pending',
  accepted: status === 'accepted',
  retryable: false,
  svc_lead_id: '9c0d1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f',
  payout: 0,
  message: code,
  disposition: { decided_by: null, decided_at: null, offer_id: 'o' },
});
const refusal = (http: number, code: string, more: Record<string, unknown> = {}, headers: Record<string, string> = {}): Scripted => ({
  status: http,
  headers,
  body: { code, status: http >= 429 ? 'failed' : 'invalid', reason: code, success: false, retryable: false, ...more },
});
const rateLimited = (seconds: number) =>
  refusal(429, 'RATE_LIMITED', { retryable: true, retry_after_seconds: seconds }, { 'Retry-After': String(seconds) });
const unavailable = (retryable: boolean) =>
  refusal(503, 'UNAVAILABLE', { retryable, ...(retryable ? { retry_after_seconds: 0 } : {}) }, retryable ? { 'Retry-After': '0' } : {});

const gaps = (seen: Seen[]) => seen.slice(1).map((s, i) => s.at - seen[i].at);

describe('LeadRouterClient', () => {
  let gateway: ScriptedGateway;
  let api: LeadRouterClient;

  beforeEach(async () => {
    gateway = new ScriptedGateway();
    await gateway.start();
    api = new LeadRouterClient({ baseUrl: gateway.url, apiKey: KEY, retry: { backoffMs: 40, maxBackoffMs: 1000 } });
  });
  afterEach(() => gateway.stop());

  describe('submit', () => {
    it('waits Retry-After after a 429, then sends the same body again, with the key in one header', async () => {
      gateway.on('POST /api/v1/engine/leads', rateLimited(1), { status: 200, body: decision('ACCEPTED', 'accepted') });
      const answer = await api.submit(submitBody);
      expect([answer.status, answer.body.code]).toEqual([200, 'ACCEPTED']);
      const sent = gateway.requests('POST /api/v1/engine/leads');
      expect(sent).toHaveLength(2);
      expect(gaps(sent)[0]).toBeGreaterThanOrEqual(990);
      for (const s of sent) {
        expect(s.body).toEqual(submitBody);
        expect([s.headers.authorization, s.headers['x-api-key']]).toEqual([`Bearer ${KEY}`, undefined]);
      }
    });

    it('backs off after a retryable 503, longer each time, and answers the decision that follows', async () => {
      gateway.on('POST /api/v1/engine/leads', unavailable(true), unavailable(true), {
        status: 200,
        body: decision('CAP_REACHED', 'rejected'),
      });
      const answer = await api.submit(submitBody);
      expect([answer.status, answer.body.code]).toEqual([200, 'CAP_REACHED']);
      const [first, second] = gaps(gateway.requests('POST /api/v1/engine/leads'));
      expect(first).toBeGreaterThanOrEqual(35);
      expect(second).toBeGreaterThanOrEqual(75);
    });

    it('gives up after its retries and answers the last 503 as it came', async () => {
      api = new LeadRouterClient({ baseUrl: gateway.url, apiKey: KEY, retry: { retries: 2, backoffMs: 5 } });
      gateway.on('POST /api/v1/engine/leads', unavailable(true));
      const answer = await api.submit(submitBody);
      expect(gateway.requests('POST /api/v1/engine/leads')).toHaveLength(3);
      expect(answer.ok).toBe(false);
      if (answer.status !== 503) throw new Error(`expected 503, got ${answer.status}`);
      expect([answer.body.code, answer.body.retryable, answer.body.retry_after_seconds]).toEqual(['UNAVAILABLE', true, 0]);
    });

    const sentOnce: Array<[string, Scripted]> = [
      ['an acceptance', { status: 200, body: decision('ACCEPTED', 'accepted') }],
      ['a refusal by the buyer', { status: 200, body: decision('BUYER_REJECTED', 'rejected') }],
      ['a duplicate', { status: 200, body: decision('DUPLICATE', 'rejected') }],
      ['a missing answer (status invalid)', { status: 200, body: decision('REQUIRED_FIELD_MISSING', 'invalid') }],
      ['PENDING (202, not final but taken)', { status: 202, body: decision('PENDING', 'pending') }],
      ['a 503 that is not retryable', unavailable(false)],
      ['a 400', refusal(400, 'INVALID_FIELD', { field: 'svc_campaign_id' })],
      ['a 403', refusal(403, 'FORBIDDEN', { error: 'result_campaign_mismatch' })],
      ['a 409', refusal(409, 'MALFORMED_REQUEST', { field: 'search_lead_id' })],
      ['a 500', refusal(500, 'INTERNAL_ERROR', { request_id: 'req-1' })],
    ];
    it.each(sentOnce)('never sends again after %s', async (_name, scripted) => {
      gateway.on('POST /api/v1/engine/leads', scripted, { status: 200, body: decision('ACCEPTED', 'accepted') });
      const answer = await api.submit(submitBody);
      expect(gateway.requests('POST /api/v1/engine/leads')).toHaveLength(1);
      expect([answer.status, answer.body]).toEqual([scripted.status, scripted.body]);
    });

    it('types each status: a 202 is PENDING, a 429 carries retry_after_seconds', async () => {
      gateway.on('POST /api/v1/engine/leads', { status: 202, body: decision('PENDING', 'pending') }, rateLimited(0));
      const pending = await api.submit(submitBody);
      if (pending.status !== 202) throw new Error(`expected 202, got ${pending.status}`);
      const code: 'PENDING' = pending.body.code;
      expect(code).toBe('PENDING');
      api = new LeadRouterClient({ baseUrl: gateway.url, apiKey: KEY, retry: { retries: 0 } });
      const limited = await api.submit(submitBody);
      if (limited.status !== 429) throw new Error(`expected 429, got ${limited.status}`);
      const seconds: number = limited.body.retry_after_seconds;
      expect(seconds).toBe(0);
    });
  });

  describe('search and poll', () => {
    it('polls every poll_after_ms until processing_done and answers the whole list', async () => {
      gateway
        .on('POST /api/v1/engine/search', { status: 200, body: searchAnswer(false, ['own'], 80) })
        .on(
          `GET /api/v1/engine/results/${SEARCH_ID}`,
          { status: 200, body: searchAnswer(false, ['own'], 120) },
          { status: 200, body: searchAnswer(true, ['own', 'partner']) },
        );
      const started = Date.now();
      const answer = await api.searchUntilDone(searchBody);
      if (!answer.ok) throw new Error(`expected a success, got ${answer.status}`);
      expect([answer.body.processing_done, answer.body.offers.map((o) => o.svc_result_id)]).toEqual([true, ['own', 'partner']]);
      const polls = gateway.requests(`GET /api/v1/engine/results/${SEARCH_ID}`);
      expect(polls).toHaveLength(2);
      expect(polls[0].at - started).toBeGreaterThanOrEqual(75);
      expect(gaps(polls)[0]).toBeGreaterThanOrEqual(115);
      expect(gateway.requests('POST /api/v1/engine/search')[0].body).toEqual(searchBody);
    });

    it('does not poll a search that is already done', async () => {
      gateway.on('POST /api/v1/engine/search', { status: 200, body: searchAnswer(true, ['own']) });
      const answer = await api.searchUntilDone(searchBody);
      expect([answer.status, gateway.seen.length]).toEqual([200, 1]);
    });

    it('sends a poll again after a 429 and goes on polling', async () => {
      gateway
        .on('POST /api/v1/engine/search', { status: 200, body: searchAnswer(false, [], 10) })
        .on(`GET /api/v1/engine/results/${SEARCH_ID}`, rateLimited(0), { status: 200, body: searchAnswer(true, ['late']) });
      const answer = await api.searchUntilDone(searchBody);
      expect(answer.ok && answer.body.offers.length).toBe(1);
      expect(gateway.requests(`GET /api/v1/engine/results/${SEARCH_ID}`)).toHaveLength(2);
    });

    it('stops at the first error of a poll and answers it', async () => {
      gateway
        .on('POST /api/v1/engine/search', { status: 200, body: searchAnswer(false, [], 10) })
        .on(`GET /api/v1/engine/results/${SEARCH_ID}`, refusal(404, 'NOT_FOUND'));
      const answer = await api.searchUntilDone(searchBody);
      expect([answer.status, answer.body.code]).toEqual([404, 'NOT_FOUND']);
      expect(gateway.requests(`GET /api/v1/engine/results/${SEARCH_ID}`)).toHaveLength(1);
    });

    it('answers a refused search without polling, and never sends a 400 again', async () => {
      gateway.on('POST /api/v1/engine/search', refusal(400, 'REQUIRED_FIELD_MISSING', { field: 'tracking.ip_address' }));
      const answer = await api.searchUntilDone(searchBody);
      expect([answer.status, answer.body.code, gateway.seen.length]).toEqual([400, 'REQUIRED_FIELD_MISSING', 1]);
    });

    it('answers the last poll of a search still open when its poll time is over', async () => {
      api = new LeadRouterClient({ baseUrl: gateway.url, apiKey: KEY, pollTimeoutMs: 100 });
      gateway
        .on('POST /api/v1/engine/search', { status: 200, body: searchAnswer(false, [], 30) })
        .on(`GET /api/v1/engine/results/${SEARCH_ID}`, { status: 200, body: searchAnswer(false, [], 30) });
      const answer = await api.searchUntilDone(searchBody);
      expect(answer.ok && answer.body.processing_done).toBe(false);
      expect(gateway.requests(`GET /api/v1/engine/results/${SEARCH_ID}`).length).toBeLessThanOrEqual(4);
    });
  });

  describe('idempotency keys', () => {
    it('a search and a submit carry an Idempotency-Key, the same on each retry of the call, a new one per call', async () => {
      gateway.on('POST /api/v1/engine/leads', rateLimited(0), { status: 200, body: decision('ACCEPTED', 'accepted') });
      await api.submit(submitBody);
      await api.submit(submitBody);
      const keys = gateway.requests('POST /api/v1/engine/leads').map((s) => s.headers['idempotency-key']);
      expect(keys).toHaveLength(3);
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(keys[1]).toBe(keys[0]);
      expect(keys[2]).not.toBe(keys[0]);
      gateway.on('POST /api/v1/engine/search', { status: 200, body: searchAnswer(true, []) });
      await api.search(searchBody, { idempotencyKey: 'my-order-42' });
      expect(gateway.requests('POST /api/v1/engine/search')[0].headers['idempotency-key']).toBe('my-order-42');
    });

    it('a keyed submit whose connection broke is sent again with the same key, and answers the answer that follows', async () => {
      gateway.on('POST /api/v1/engine/leads', { status: 0, body: null }, { status: 200, body: decision('ACCEPTED', 'accepted') });
      const answer = await api.submit(submitBody, { idempotencyKey: 'retry-me' });
      expect([answer.status, answer.body.code]).toEqual([200, 'ACCEPTED']);
      const sent = gateway.requests('POST /api/v1/engine/leads');
      expect(sent.map((s) => s.headers['idempotency-key'])).toEqual(['retry-me', 'retry-me']);
      expect(sent[1].body).toEqual(submitBody);
    });

    it('a keyed submit throws once every try failed; a call without a key (a poll) throws at the first network failure', async () => {
      gateway.on('POST /api/v1/engine/leads', { status: 0, body: null });
      await expect(api.submit(submitBody)).rejects.toThrow();
      expect(gateway.requests('POST /api/v1/engine/leads')).toHaveLength(4);
      gateway.on(`GET /api/v1/engine/results/${SEARCH_ID}`, { status: 0, body: null });
      await expect(api.results(SEARCH_ID)).rejects.toThrow();
      expect(gateway.requests(`GET /api/v1/engine/results/${SEARCH_ID}`)).toHaveLength(1);
    });
  });

  it('throws when the gateway cannot be reached at all, after the retries of a keyed call', async () => {
    await gateway.stop();
    gateway.stop = () => Promise.resolve();
    await expect(api.submit(submitBody)).rejects.toThrow();
    await expect(api.results(SEARCH_ID)).rejects.toThrow();
  });
});

describe('retryDelayMs', () => {
  const headers = (h: Record<string, string> = {}) => new Headers(h);

  it('retries only a 429 and a 503 that says retryable', () => {
    expect(retryDelayMs({ status: 429, body: {}, headers: headers({ 'Retry-After': '3' }) }, 1)).toBe(3000);
    expect(retryDelayMs({ status: 503, body: { retryable: true }, headers: headers() }, 1)).toBe(500);
    for (const status of [200, 202, 400, 401, 403, 404, 409, 413, 500, 502]) {
      expect([status, retryDelayMs({ status, body: { retryable: true }, headers: headers({ 'Retry-After': '1' }) }, 1)]).toEqual([
        status,
        undefined,
      ]);
    }
    expect(retryDelayMs({ status: 503, body: { retryable: false }, headers: headers({ 'Retry-After': '1' }) }, 1)).toBeUndefined();
  });

  it('reads retry_after_seconds when there is no header, backs off exponentially up to the cap, and stops after the retries', () => {
    const policy = { retries: 5, backoffMs: 100, maxBackoffMs: 350 };
    expect(retryDelayMs({ status: 429, body: { retry_after_seconds: 2 }, headers: headers() }, 1, policy)).toBe(2000);
    expect([1, 2, 3, 4].map((n) => retryDelayMs({ status: 503, body: { retryable: true }, headers: headers() }, n, policy))).toEqual([
      100, 200, 350, 350,
    ]);
    expect(retryDelayMs({ status: 503, body: { retryable: true }, headers: headers({ 'Retry-After': '1' }) }, 1, policy)).toBe(1000);
    expect(retryDelayMs({ status: 429, body: {}, headers: headers({ 'Retry-After': '1' }) }, 6, policy)).toBeUndefined();
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-09-28T12:00:00Z');
    expect(retryAfterMs(headers({ 'Retry-After': '7' }), now)).toBe(7000);
    expect(retryAfterMs(headers({ 'Retry-After': 'Mon, 28 Sep 2026 12:00:05 GMT' }), now)).toBe(5000);
    expect(retryAfterMs(headers({ 'Retry-After': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(headers(), now)).toBeUndefined();
  });
});

// Compile-time: a leads request is one of the two modes (`npm run typecheck` fails if this compiles).
// @ts-expect-error neither svc_result_id with search_lead_id, nor svc_offer_id with lead and tracking
export const neitherMode: LeadsRequest = { ...ids };
