import { errorCodes, HttpAbortedError, HttpBodyTooLargeError, HttpTransportError, postJsonAnswer, SUMMARY_BODY_BYTES } from './post-json';

// The cap, streaming and abort paths are covered through the partner adapter's postJson spec; these are the options it does not use.
describe('postJsonAnswer', () => {
  const url = new URL('http://server.test/leads');
  let fetchMock: jest.SpyInstance;
  const answer = (res: Response | Promise<Response>) => fetchMock.mockImplementation(() => res);
  const post = (opts: { readsInFull?: (s: number) => boolean; maxBytes?: number } = {}) =>
    postJsonAnswer(url, { a: 1 }, { signal: new AbortController().signal, maxBytes: opts.maxBytes ?? 100, readsInFull: opts.readsInFull });
  const failure = (cause?: unknown) => Promise.reject(new TypeError('fetch failed', cause === undefined ? undefined : { cause }));

  beforeEach(() => {
    fetchMock = jest.spyOn(globalThis, 'fetch');
  });
  afterEach(() => fetchMock.mockRestore());

  it('reads a 2xx body in full and only a summary of others by default', async () => {
    answer(new Response('{"ok":true}', { status: 201 }));
    await expect(post()).resolves.toEqual({ status: 201, text: '{"ok":true}' });
    answer(new Response('x'.repeat(SUMMARY_BODY_BYTES + 10), { status: 409 }));
    await expect(post()).resolves.toEqual({ status: 409, text: 'x'.repeat(SUMMARY_BODY_BYTES) });
  });

  it('reads the statuses the caller names in full, under its cap', async () => {
    const fourXx = (s: number) => s >= 200 && s < 500;
    answer(new Response('{"status":"duplicate"}', { status: 409 }));
    await expect(post({ readsInFull: fourXx })).resolves.toEqual({ status: 409, text: '{"status":"duplicate"}' });
    answer(new Response('x'.repeat(101), { status: 422 }));
    await expect(post({ readsInFull: fourXx })).rejects.toEqual(new HttpBodyTooLargeError(100));
  });

  it.each<[string, unknown, string, boolean]>([
    ['a refused connection', { code: 'ECONNREFUSED' }, 'ECONNREFUSED', true],
    ['a DNS failure', { code: 'ENOTFOUND' }, 'ENOTFOUND', true],
    ['a port fetch will not use', new Error('bad port'), 'BAD_PORT', true],
    ['every address refused', { errors: [{ code: 'ECONNREFUSED' }, { code: 'EHOSTUNREACH' }] }, 'UNKNOWN', true],
    ['a reset connection', { code: 'ECONNRESET' }, 'ECONNRESET', false],
    ['a closed socket', { code: 'UND_ERR_SOCKET' }, 'UND_ERR_SOCKET', false],
    ['a redirect', new Error('unexpected redirect'), 'REDIRECT_REFUSED', false],
  ])('reports %s as HttpTransportError, notSent only when no connection was made', async (_, cause, code, notSent) => {
    answer(failure(cause));
    await expect(post()).rejects.toEqual(new HttpTransportError(code, notSent));
    const error = (await post().catch((e: unknown) => e)) as HttpTransportError;
    expect(error.notSent).toBe(notSent);
  });

  it('does not quote the message of a request fetch would not build (it may hold a header value)', async () => {
    answer(Promise.reject(new TypeError('Headers.append: "Bearer s3cret\n" is an invalid header value.')));
    const error = (await post().catch((e: unknown) => e)) as HttpTransportError;
    expect(error).toBeInstanceOf(HttpTransportError);
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.notSent).toBe(true);
    expect(error.message).not.toContain('s3cret');
  });

  it('reports an abort with the signal reason', async () => {
    fetchMock.mockImplementation(
      (_url: URL, init: RequestInit) =>
        new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
    );
    const controller = new AbortController();
    const pending = postJsonAnswer(url, {}, { signal: controller.signal, maxBytes: 10 });
    controller.abort('deadline');
    const error = (await pending.catch((e: unknown) => e)) as HttpAbortedError;
    expect(error).toBeInstanceOf(HttpAbortedError);
    expect(error.reason).toBe('deadline');
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
