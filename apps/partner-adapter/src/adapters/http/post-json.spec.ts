import { PartnerHttpError, PartnerProtocolError, PartnerTimeoutError } from '../partner-errors';
import { MAX_RESPONSE_BYTES, postJson } from './post-json';

const URL_ = new URL('http://partner.test/partners/alpha/search?delay_ms=0');

/** A body streamed in chunks, without a content-length. */
function streamed(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    pull(controller) {
      const next = chunks.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
}

describe('postJson', () => {
  let fetchMock: jest.SpyInstance;
  const answer = (res: Response | Promise<Response>) => fetchMock.mockImplementation(() => res);
  const post = (signal = new AbortController().signal) => postJson(URL_, { a: 1 }, { signal, headers: { 'idempotency-key': 'k1' } });

  beforeEach(() => {
    fetchMock = jest.spyOn(globalThis, 'fetch');
  });
  afterEach(() => fetchMock.mockRestore());

  it('POSTs JSON, refuses redirects, and returns the parsed body', async () => {
    answer(new Response(JSON.stringify({ results: [] }), { status: 200 }));
    await expect(post()).resolves.toEqual({ results: [] });
    const [url, init] = fetchMock.mock.calls[0] as [URL, RequestInit];
    expect(url.toString()).toBe(URL_.toString());
    expect(init).toMatchObject({ method: 'POST', body: '{"a":1}', redirect: 'error' });
    expect(init.headers).toMatchObject({ 'content-type': 'application/json', 'idempotency-key': 'k1' });
  });

  it('throws PartnerHttpError with the status and the codes of a JSON error body on a non-2xx answer', async () => {
    answer(new Response('{"error":"INVALID_PARAM","param":"delay_ms","message":"delay_ms must be an integer"}', { status: 400 }));
    const error = await post().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartnerHttpError);
    expect((error as PartnerHttpError).status).toBe(400);
    expect((error as Error).message).toBe('HTTP 400: INVALID_PARAM delay_ms');
  });

  it.each([
    ['free text', 'Bad request for ada@example.com'],
    ['an error naming the lead', '{"error":"ada@example.com is not allowed"}'],
    ['a long error', `{"error":"${'x'.repeat(101)}"}`],
  ])('leaves %s out of the HTTP error (it could echo the lead)', async (_, body) => {
    answer(new Response(body, { status: 500 }));
    await expect(post()).rejects.toThrow(new PartnerHttpError(500, ''));
    expect(new PartnerHttpError(500, '').message).toBe('HTTP 500');
  });

  it('throws PartnerHttpError without a status when there is no HTTP answer', async () => {
    answer(Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })));
    const error = await post().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartnerHttpError);
    expect((error as PartnerHttpError).status).toBeNull();
    expect((error as Error).message).toBe('no HTTP answer: ECONNREFUSED');
  });

  it('throws PartnerProtocolError for a body that is not JSON', async () => {
    answer(new Response('<html>oops</html>', { status: 200 }));
    await expect(post()).rejects.toThrow(new PartnerProtocolError('the response body is not JSON'));
  });

  it('refuses a body over 1 MB from its content-length, without reading it', async () => {
    const body = streamed([new Uint8Array(10)]);
    answer(new Response(body, { status: 200, headers: { 'content-length': String(MAX_RESPONSE_BYTES + 1) } }));
    await expect(post()).rejects.toThrow(PartnerProtocolError);
    expect(body.locked).toBe(false); // cancelled, not read
  });

  it('stops reading a streamed body once it passes 1 MB', async () => {
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        controller.enqueue(new Uint8Array(256 * 1024).fill(0x20));
      },
    });
    answer(new Response(endless, { status: 200 }));
    await expect(post()).rejects.toThrow(`the response body is larger than ${MAX_RESPONSE_BYTES} bytes`);
    expect(pulls).toBeLessThanOrEqual(6); // 5 chunks pass 1 MB; one more may be buffered ahead
  });

  it('reads a body of exactly 1 MB', async () => {
    const json = `"${'a'.repeat(MAX_RESPONSE_BYTES - 2)}"`;
    answer(new Response(json, { status: 200 }));
    await expect(post()).resolves.toHaveLength(MAX_RESPONSE_BYTES - 2);
  });

  it('throws PartnerTimeoutError (the signal reason) when aborted before the answer', async () => {
    fetchMock.mockImplementation(
      (_url: URL, init: RequestInit) =>
        new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
    );
    const controller = new AbortController();
    const pending = post(controller.signal);
    const reason = new PartnerTimeoutError(250);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('throws PartnerTimeoutError when aborted while reading the body', async () => {
    const controller = new AbortController();
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"results":'));
        controller.signal.addEventListener('abort', () => c.error(new DOMException('aborted', 'AbortError')));
      },
    });
    answer(new Response(body, { status: 200 }));
    const pending = post(controller.signal);
    setTimeout(() => controller.abort(), 10);
    await expect(pending).rejects.toBeInstanceOf(PartnerTimeoutError);
  });
});
