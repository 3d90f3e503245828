import { connect, Socket } from 'node:net';
import { buildTestCatalog, searchBody } from '../support/catalog-builder';
import { call } from '../support/http';
import { RunningApp, startApp, stopAppsAndTopology } from '../support/app-process';
import { applyCatalog, issueKey } from '../support/ops';
import { testEnv, uniqueSuffix } from '../support/test-env';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SEARCH = '/api/v1/engine/search';

/** What came back on a raw connection, and when it closed (ms after the request's headers were sent). */
interface RawConnection {
  socket: Socket;
  received: () => string;
  closed: Promise<number>;
}

/** Opens a connection to `port` and sends `head` at once; the caller sends the rest (or nothing). */
function rawConnection(port: number, head: string): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.once('error', () => undefined);
    socket.once('connect', () => {
      const started = Date.now();
      socket.write(head);
      resolve({ socket, received: () => data, closed: new Promise((r) => socket.once('close', () => r(Date.now() - started))) });
    });
    socket.once('error', reject);
  });
}

/**
 * The gateway's front door against abuse, black-box over HTTP on the built
 * gateway with short limits: bodies are read only after the key is checked and
 * only as fast as the request timeout allows, calls without a usable key have
 * a budget per client address, /metrics and /health/* answer on the management
 * port only, answers carry nosniff / no-store (the docs their CSP), and the
 * correlation id is the gateway's own.
 */
describe('gateway hardening (e2e)', () => {
  const REQUEST_TIMEOUT_MS = 3000;
  const BURST = 5;
  const env = testEnv(uniqueSuffix(), {
    LOG_LEVEL: 'info',
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    HEADERS_TIMEOUT_MS: '2000',
    UNAUTHENTICATED_PER_MINUTE: '6',
    UNAUTHENTICATED_BURST: String(BURST),
    // A key once read stays held for the whole file: what a key in steady use looks like to a gateway.
    API_KEY_CACHE_MS: '60000',
  });
  const { ids, catalog } = buildTestCatalog();
  let gateway: RunningApp;
  let key: string;

  beforeAll(async () => {
    applyCatalog(catalog, env);
    key = issueKey(ids.affiliateA, env, ['--limit', 'search=6000/1000', '--limit', 'results=6000/1000']).key;
    await startApp('search-orchestrator', env);
    gateway = await startApp('gateway', env);
  });

  afterAll(() => stopAppsAndTopology(env));

  describe('slow requests', () => {
    it('a body sent a byte a second without a key: refused 401 before the body is read, and the connection cut within the request timeout', async () => {
      const conn = await rawConnection(
        gateway.port,
        `POST ${SEARCH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{`,
      );
      const drip = setInterval(() => conn.socket.writable && conn.socket.write(' '), 1000);
      try {
        const closedAfter = await conn.closed;
        // The answer came before the body (a 10 000-byte body at a byte a second would take hours).
        expect(conn.received()).toMatch(/^HTTP\/1\.1 401 /);
        expect(conn.received()).toContain('"code":"AUTH_REQUIRED"');
        // One answer only: no 408 written after the 401 on the same connection.
        expect(conn.received().match(/HTTP\/1\.1 /g)).toHaveLength(1);
        // Node checks deadlines every second: cut within the timeout and that second, far from the minutes it once held.
        expect(closedAfter).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 200);
        expect(closedAfter).toBeLessThan(REQUEST_TIMEOUT_MS + 2500);
      } finally {
        clearInterval(drip);
        conn.socket.destroy();
      }
    });

    it('a body sent a byte a second with a valid key: 408 MALFORMED_REQUEST within the request timeout', async () => {
      const conn = await rawConnection(
        gateway.port,
        `POST ${SEARCH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{`,
      );
      const drip = setInterval(() => conn.socket.writable && conn.socket.write(' '), 1000);
      try {
        const closedAfter = await conn.closed;
        expect(conn.received()).toMatch(/^HTTP\/1\.1 408 /);
        expect(conn.received()).toContain('"code":"MALFORMED_REQUEST"');
        expect(closedAfter).toBeLessThan(REQUEST_TIMEOUT_MS + 2500);
      } finally {
        clearInterval(drip);
        conn.socket.destroy();
      }
    });

    it('headers sent a line a second: cut within the headers timeout', async () => {
      const conn = await rawConnection(gateway.port, `GET /api/v1/engine/results/${ids.campaignA} HTTP/1.1\r\nHost: x\r\n`);
      let n = 0;
      const drip = setInterval(() => conn.socket.writable && conn.socket.write(`X-Slow-${n++}: 1\r\n`), 1000);
      try {
        const closedAfter = await conn.closed;
        expect(closedAfter).toBeLessThan(2000 + 2500);
        expect(conn.received()).toMatch(/^HTTP\/1\.1 408 /);
      } finally {
        clearInterval(drip);
        conn.socket.destroy();
      }
    });
  });

  describe('the management port', () => {
    it('answers /metrics and /health/* on the management port, and never on the public API port', async () => {
      expect(gateway.managementUrl).not.toBe(gateway.url);
      for (const path of ['/metrics', '/health/live', '/health/ready']) {
        const management = await call(gateway.managementUrl, 'GET', path);
        expect([path, management.status]).toEqual([path, 200]);
        const api = await call(gateway.url, 'GET', path);
        expect([path, api.status, api.body?.code]).toEqual([path, 404, 'NOT_FOUND']);
      }
      expect((await call(gateway.managementUrl, 'GET', '/metrics')).text).toContain('http_request_duration_seconds');
    });
  });

  describe('headers', () => {
    it('API answers, errors included, carry nosniff and no-store', async () => {
      const ok = await call(gateway.url, 'POST', SEARCH, { key, body: searchBody(ids.campaignA, ids.affiliateA) });
      const notFound = await call(gateway.url, 'GET', `/api/v1/engine/results/${ids.campaignA}`, { key });
      const malformed = await call(gateway.url, 'POST', SEARCH, { key, rawBody: '{"a":' });
      for (const res of [ok, notFound, malformed]) {
        expect([res.status, res.headers.get('x-content-type-options'), res.headers.get('cache-control')]).toEqual([
          res.status,
          'nosniff',
          'no-store',
        ]);
      }
      expect([ok.status, notFound.status, malformed.status]).toEqual([200, 404, 400]);
    });

    it('/docs carries a Content-Security-Policy that allows only the gateway itself, and the page still loads its assets', async () => {
      const page = await call(gateway.url, 'GET', '/docs');
      expect(page.status).toBe(200);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      // Every script the page loads is a file of the gateway's (none inline: the CSP would block it).
      expect(page.text).not.toMatch(/<script>(?!\s*<\/script>)/);
      const scripts = [...page.text.matchAll(/<script src=["']?([^"' >]+)/g)].map((m) => m[1]);
      expect(scripts.length).toBeGreaterThan(0);
      for (const src of scripts) {
        const asset = await call(gateway.url, 'GET', new URL(src, `${gateway.url}/docs`).pathname);
        expect([src, asset.status]).toEqual([src, 200]);
      }
    });
  });

  describe('correlation id', () => {
    it('is the gateway’s own UUID, never the caller’s X-Request-Id, which is logged beside it as client_request_id', async () => {
      const sent = `shared-id-${uniqueSuffix()}`;
      const first = await call(gateway.url, 'POST', SEARCH, {
        key,
        body: searchBody(ids.campaignA, ids.affiliateA),
        headers: { 'X-Request-Id': sent },
      });
      const second = await call(gateway.url, 'POST', SEARCH, {
        key,
        body: searchBody(ids.campaignA, ids.affiliateA),
        headers: { 'X-Request-Id': sent },
      });
      const [a, b] = [first.headers.get('x-request-id')!, second.headers.get('x-request-id')!];
      expect([first.status, second.status]).toEqual([200, 200]);
      expect([a, b]).toEqual([expect.stringMatching(UUID), expect.stringMatching(UUID)]);
      expect(a).not.toBe(b);
      const lines = () =>
        gateway
          .output()
          .split('\n')
          .filter((l) => l.includes('"request completed"') || l.includes('"request errored"'))
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      for (let i = 0; i < 20 && !lines().some((l) => l.correlation_id === b); i++) await new Promise((r) => setTimeout(r, 100));
      const mine = lines().filter((l) => l.client_request_id === sent);
      expect(mine.map((l) => l.correlation_id).sort()).toEqual([a, b].sort());
      expect(lines().filter((l) => l.correlation_id === sent)).toEqual([]);
    });
  });

  // Last: it spends this address's budget for calls without a usable key.
  describe('calls without a usable key', () => {
    it('a flood of unknown keys: 401 up to the address’s burst, then 429 RATE_LIMITED with Retry-After; a valid key still passes', async () => {
      const answers = [];
      for (let i = 0; i < BURST + 5; i++) {
        answers.push(await call(gateway.url, 'POST', SEARCH, { key: `lr_made-up-${i}-${uniqueSuffix()}`, body: {} }));
      }
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(BURST);
      expect(statuses.slice(BURST)).toEqual(Array(5).fill(429));
      const limited = answers[answers.length - 1];
      expect(limited.body).toEqual(
        expect.objectContaining({
          code: 'RATE_LIMITED',
          status: 'failed',
          reason: 'Too many requests',
          retryable: true,
          retry_after_seconds: expect.any(Number),
        }),
      );
      expect(Number(limited.headers.get('retry-after'))).toBe(limited.body.retry_after_seconds);
      expect(limited.body.retry_after_seconds).toBeGreaterThanOrEqual(1);
      // No key at all counts the same.
      expect((await call(gateway.url, 'POST', SEARCH, { body: {} })).status).toBe(429);
      // A key this gateway holds (read before, here by the tests above) is the key's to budget, not the address's.
      expect((await call(gateway.url, 'POST', SEARCH, { key, body: searchBody(ids.campaignA, ids.affiliateA) })).status).toBe(200);
      const metrics = await call(gateway.managementUrl, 'GET', '/metrics');
      expect(metrics.text).toMatch(/gateway_unauthenticated_rate_limited_total\{[^}]*\} [1-9]/);
    });
  });
});
