import { once } from 'node:events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MockAgent } from 'undici';
import { mockHttpDispatcher } from '../../../test/support/mock-http-dispatcher';
import { errorCodes, HttpAbortedError, HttpBodyTooLargeError, HttpTransportError, postJsonAnswer, SUMMARY_BODY_BYTES } from './post-json';

// The wire behaviours, against a server on the loopback interface: what is sent, redirects, caps, aborts, connections.
// How partner and school errors are built from these is in the partner adapter's and delivery's specs.
describe('postJsonAnswer over HTTP', () => {
  // A server per test: a new origin, so undici's connection pool for it starts empty and `connections` counts what the call opened.
  let server: Server;
  let base: string;
  let handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** What the server got. */
  const requests: Array<{ method?: string; url?: string; headers: IncomingMessage['headers']; body: string }> = [];
  let connections = 0;

  beforeEach(async () => {
    requests.length = 0;
    connections = 0;
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        requests.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        handle(req, res);
      });
    });
    server.on('connection', () => (connections += 1));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  /** The pool takes a connection back a tick after its body ended; a call made at once may open another. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

  const reply = (status: number, body = '', headers: Record<string, string> = {}) => {
    handle = (_, res) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    };
  };
  const post = (
    opts: {
      path?: string;
      maxBytes?: number;
      readsInFull?: (s: number) => boolean;
      signal?: AbortSignal;
      headers?: Record<string, string>;
    } = {},
  ) =>
    postJsonAnswer(
      new URL(base + (opts.path ?? '/leads?src=lr')),
      { a: 1 },
      {
        headers: opts.headers,
        signal: opts.signal ?? new AbortController().signal,
        maxBytes: opts.maxBytes ?? 100,
        readsInFull: opts.readsInFull,
      },
    );
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: unknown) => e as Error,
    );

  it('POSTs the JSON body with JSON content-type and accept, a user-agent and the caller headers, over one kept-alive connection', async () => {
    reply(201, '{"ok":true}');
    await expect(post({ headers: { 'idempotency-key': 'k1', accept: 'application/vnd.school+json' } })).resolves.toEqual({
      status: 201,
      text: '{"ok":true}',
    });
    await settle();
    await expect(post()).resolves.toEqual({ status: 201, text: '{"ok":true}' });
    expect(requests[0]).toMatchObject({ method: 'POST', url: '/leads?src=lr', body: '{"a":1}' });
    expect(requests[0].headers).toMatchObject({
      'content-type': 'application/json',
      accept: 'application/vnd.school+json',
      'user-agent': 'node',
      'idempotency-key': 'k1',
      'content-length': '7',
      connection: 'keep-alive',
    });
    expect(requests[1].headers.accept).toBe('application/json');
    expect(connections).toBe(1);
  });

  it('reads a 2xx body in full and only a summary of others by default', async () => {
    reply(200, 'é'.repeat(50)); // 100 bytes of UTF-8
    await expect(post()).resolves.toEqual({ status: 200, text: 'é'.repeat(50) });
    reply(409, 'x'.repeat(SUMMARY_BODY_BYTES + 10));
    await expect(post()).resolves.toEqual({ status: 409, text: 'x'.repeat(SUMMARY_BODY_BYTES) });
    reply(500, 'x'.repeat(SUMMARY_BODY_BYTES + 10), { 'content-length': String(SUMMARY_BODY_BYTES + 10) });
    await expect(post()).resolves.toEqual({ status: 500, text: 'x'.repeat(SUMMARY_BODY_BYTES) });
    reply(204);
    await expect(post()).resolves.toEqual({ status: 204, text: '' });
  });

  it('reads the statuses the caller names in full, under its cap', async () => {
    const fourXx = (s: number) => s >= 200 && s < 500;
    reply(409, '{"status":"duplicate"}');
    await expect(post({ readsInFull: fourXx })).resolves.toEqual({ status: 409, text: '{"status":"duplicate"}' });
    reply(422, 'x'.repeat(101));
    await expect(post({ readsInFull: fourXx })).rejects.toEqual(new HttpBodyTooLargeError(100));
  });

  it.each([301, 302, 303, 307, 308])('refuses a %i redirect without following it, reading its body off the connection', async (status) => {
    handle = (_, res) => {
      res.writeHead(status, { location: `${base}/steal`, 'content-type': 'application/json' });
      res.write('{"moved":'); // the rest after the status: a body read to its end, not cut off
      setTimeout(() => res.end('true}'), 20);
    };
    const error = await failure(post());
    expect(error).toEqual(new HttpTransportError('REDIRECT_REFUSED', false));
    expect((error as HttpTransportError).notSent).toBe(false);
    reply(200, '{}');
    await settle();
    await post();
    expect(requests.map((r) => r.url)).toEqual(['/leads?src=lr', '/leads?src=lr']);
    expect(connections).toBe(1); // the redirect's connection served the next call
  });

  it.each([300, 304])('returns a %i as an answer, as fetch did (not a redirect it would follow)', async (status) => {
    reply(status, status === 304 ? '' : '{"choices":[]}', { location: `${base}/steal` });
    await expect(post()).resolves.toEqual({ status, text: status === 304 ? '' : '{"choices":[]}' });
    expect(requests).toHaveLength(1);
  });

  it('refuses a body whose content-length is over the cap without reading it', async () => {
    let closed!: Promise<unknown>;
    handle = (_, res) => {
      res.writeHead(200, { 'content-length': '101' });
      res.write('x'.repeat(10)); // the rest never comes: a read would wait for it
      closed = once(res, 'close');
    };
    await expect(post()).rejects.toEqual(new HttpBodyTooLargeError(100));
    await closed; // the connection was dropped
  });

  it('stops reading a streamed body once it passes the cap', async () => {
    let written = 0;
    let closed!: Promise<unknown>;
    handle = (_, res) => {
      res.writeHead(200);
      closed = once(res, 'close');
      const more = () => {
        while (!res.destroyed && written < 64 * 1024 * 1024) {
          written += 16 * 1024;
          if (!res.write(Buffer.alloc(16 * 1024, 0x20))) return void res.once('drain', more);
        }
      };
      more();
    };
    await expect(post({ maxBytes: 1024 * 1024 })).rejects.toEqual(new HttpBodyTooLargeError(1024 * 1024));
    await closed;
    expect(written).toBeLessThan(16 * 1024 * 1024); // what the socket buffers took, not the 64 MB on offer
  });

  it('reports an abort before the answer with the signal reason', async () => {
    handle = () => undefined; // never answers
    const controller = new AbortController();
    const pending = post({ signal: controller.signal });
    setTimeout(() => controller.abort('deadline'), 20);
    const error = await failure(pending);
    expect(error).toBeInstanceOf(HttpAbortedError);
    expect((error as HttpAbortedError).reason).toBe('deadline');
  });

  it('reports an abort while the body is read with the signal reason', async () => {
    const controller = new AbortController();
    handle = (_, res) => {
      res.writeHead(200);
      res.write('{"results":');
      setTimeout(() => controller.abort('deadline'), 20);
    };
    const error = await failure(post({ signal: controller.signal }));
    expect(error).toBeInstanceOf(HttpAbortedError);
    expect((error as HttpAbortedError).reason).toBe('deadline');
  });

  it('sends nothing with a signal that already aborted', async () => {
    reply(200, '{}');
    const error = await failure(post({ signal: AbortSignal.abort('gone') }));
    expect(error).toEqual(new HttpAbortedError('gone'));
    expect(connections).toBe(0);
  });

  it('reports a refused connection as never sent, and a connection closed before the answer as maybe received', async () => {
    const closedPort = createServer();
    closedPort.listen(0, '127.0.0.1');
    await once(closedPort, 'listening');
    const port = (closedPort.address() as AddressInfo).port;
    closedPort.close();
    await once(closedPort, 'close');
    const refused = await failure(
      postJsonAnswer(new URL(`http://127.0.0.1:${port}/`), {}, { signal: new AbortController().signal, maxBytes: 10 }),
    );
    expect(refused).toEqual(new HttpTransportError('ECONNREFUSED', true));
    expect((refused as HttpTransportError).notSent).toBe(true);

    handle = (req) => req.socket.destroy();
    const closed = await failure(post());
    expect(closed).toEqual(new HttpTransportError('UND_ERR_SOCKET', false));
    expect((closed as HttpTransportError).notSent).toBe(false);
  });

  it('refuses, sending nothing, a port fetch would not use, a URL with credentials, a header value with a newline and a body JSON cannot hold', async () => {
    const signal = new AbortController().signal;
    const badPort = await failure(postJsonAnswer(new URL('http://127.0.0.1:6000/'), {}, { signal, maxBytes: 10 }));
    expect(badPort).toEqual(new HttpTransportError('BAD_PORT', true));
    expect((badPort as HttpTransportError).notSent).toBe(true);

    const credentials = await failure(postJsonAnswer(new URL(base.replace('//', '//user:pw@')), {}, { signal, maxBytes: 10 }));
    expect(credentials).toEqual(new HttpTransportError('INVALID_REQUEST', true));
    expect((credentials as HttpTransportError).notSent).toBe(true);

    const header = await failure(post({ headers: { authorization: 'Bearer s3cret\n' } }));
    expect(header).toEqual(new HttpTransportError('INVALID_REQUEST', true));
    expect((header as HttpTransportError).notSent).toBe(true);
    expect(header.message).not.toContain('s3cret');

    const json = await failure(postJsonAnswer(new URL(base), { n: 1n }, { signal, maxBytes: 10 }));
    expect(json).toEqual(new HttpTransportError('INVALID_REQUEST', true));
    expect(connections).toBe(0);
  });
});

// Errors a loopback server cannot produce, as undici reports them (the code on the error itself).
describe('postJsonAnswer transport errors', () => {
  let mock: ReturnType<typeof mockHttpDispatcher>;
  let agent: MockAgent;
  beforeEach(() => {
    mock = mockHttpDispatcher({ callHistory: false });
    agent = mock.agent;
  });
  afterEach(() => mock.restore());
  const code = (c: string) => Object.assign(new Error(`failed: ${c}`), { code: c });

  it.each<[string, Error, string, boolean]>([
    ['a DNS failure', code('ENOTFOUND'), 'ENOTFOUND', true],
    ['a connect timeout', code('UND_ERR_CONNECT_TIMEOUT'), 'UND_ERR_CONNECT_TIMEOUT', true],
    ['an expired certificate', code('CERT_HAS_EXPIRED'), 'CERT_HAS_EXPIRED', true],
    ['every address refused', new AggregateError([code('ECONNREFUSED'), code('EHOSTUNREACH')]), 'UNKNOWN', true],
    [
      'every address refused (Node naming the first)',
      Object.assign(new AggregateError([code('ECONNREFUSED'), code('ETIMEDOUT')]), { code: 'ECONNREFUSED' }),
      'ECONNREFUSED',
      true,
    ],
    ['one address timing out', new AggregateError([code('ECONNREFUSED'), code('ETIMEDOUT')]), 'UNKNOWN', false],
    ['a reset connection', code('ECONNRESET'), 'ECONNRESET', false],
    ['a headers timeout', code('UND_ERR_HEADERS_TIMEOUT'), 'UND_ERR_HEADERS_TIMEOUT', false],
  ])('reports %s as HttpTransportError, notSent only when no connection was made', async (_, error, expected, notSent) => {
    agent.get('http://server.test').intercept({ path: '/leads', method: 'POST' }).replyWithError(error);
    const thrown = (await postJsonAnswer(
      new URL('http://server.test/leads'),
      {},
      { signal: new AbortController().signal, maxBytes: 10 },
    ).catch((e: unknown) => e)) as HttpTransportError;
    expect(thrown).toEqual(new HttpTransportError(expected, notSent));
    expect(thrown.notSent).toBe(notSent);
  });
});

describe('errorCodes', () => {
  it('names the error, code and param fields of a JSON body that are short codes', () => {
    expect(errorCodes('{"error":"INVALID_PARAM","param":"delay_ms","message":"free text"}')).toBe('INVALID_PARAM delay_ms');
    expect(errorCodes('<html>')).toBe('');
    expect(errorCodes('"text"')).toBe('');
  });

  it('takes a stricter token', () => {
    expect(errorCodes('{"error":"Bad lead","code":"E42"}', /^[A-Z0-9_]+$/)).toBe('E42');
  });
});
