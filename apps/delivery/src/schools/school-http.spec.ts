import { MAX_SCHOOL_ANSWER_BYTES, postToSchool } from './school-http';
import { SchoolConfigError, SchoolHttpError, SchoolProtocolError, SchoolTimeoutError } from './school-errors';
import { sampleDelivery, fetchStub } from './school-delivery.fixture';

describe('postToSchool', () => {
  const d = sampleDelivery({ adapter: 'json', url: 'https://api.school.example/leads?src=lr' });
  const http = fetchStub();
  beforeEach(http.install);
  afterEach(http.restore);
  const answer = (res: Response | Promise<Response>) => http.answer(res);
  const post = (signal = new AbortController().signal, delivery = d) => postToSchool(delivery, { a: 1 }, {}, signal);
  const failure = (p: Promise<unknown>) => p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as Error,
  );

  it('POSTs JSON with the Idempotency-Key to the settings URL, refusing redirects', async () => {
    answer(new Response('{"status":"ok"}', { status: 200 }));
    await expect(post()).resolves.toEqual({ status: 200, json: { status: 'ok' }, isJson: true, codes: '' });
    const { url, init, headers } = http.sent();
    expect(url).toBe('https://api.school.example/leads?src=lr');
    expect(init).toMatchObject({ method: 'POST', body: '{"a":1}', redirect: 'error' });
    expect(headers).toMatchObject({ 'content-type': 'application/json', 'idempotency-key': d.leadId });
  });

  it('returns a 4xx answer for the rules to read, and a body that is not JSON as such', async () => {
    answer(new Response('{"error":"DUPLICATE_LEAD","message":"Ada is already ours"}', { status: 409 }));
    await expect(post()).resolves.toEqual({ status: 409, json: { error: 'DUPLICATE_LEAD', message: 'Ada is already ours' }, isJson: true, codes: 'DUPLICATE_LEAD' });
    answer(new Response('Thanks!', { status: 200 }));
    await expect(post()).resolves.toMatchObject({ status: 200, isJson: false });
  });

  it.each([500, 503, 304])('throws SchoolHttpError for HTTP %i (the school received the request)', async (status) => {
    answer(new Response(status === 304 ? null : '{"error":"INVALID_PARAM","param":"delay_ms"}', { status }));
    const error = await failure(post());
    expect(error).toBeInstanceOf(SchoolHttpError);
    expect(error).toMatchObject({ status, notReceived: false });
  });

  it.each([
    ['free text', '{"error":"Internal Server Error"}'],
    ['the lead', '{"error":"ada@example.com","code":"Ada Lovelace"}'],
    ['not JSON', 'Bad request for ada@example.com'],
  ])('keeps %s of an error body out of the detail', async (_, body) => {
    answer(new Response(body, { status: 500 }));
    const error = await failure(post());
    expect((error as SchoolHttpError).detail).toBe('HTTP 500');
  });

  it('names the codes of an error body in the detail', async () => {
    answer(new Response('{"error":"INVALID_PARAM","param":"delay_ms","message":"delay_ms must be an integer"}', { status: 500 }));
    expect(await failure(post())).toMatchObject({ detail: 'HTTP 500: INVALID_PARAM delay_ms', code: 'SCHOOL_HTTP_ERROR' });
  });

  it.each<[string, unknown, string, boolean]>([
    ['a refused connection', { code: 'ECONNREFUSED' }, 'no HTTP answer: ECONNREFUSED', true],
    ['a DNS failure', { code: 'ENOTFOUND' }, 'no HTTP answer: ENOTFOUND', true],
    ['a reset connection', { code: 'ECONNRESET' }, 'no HTTP answer: ECONNRESET', false],
    ['a redirect', new Error('unexpected redirect'), 'no HTTP answer: REDIRECT_REFUSED', false],
  ])('throws SchoolHttpError without a status for %s, notReceived only when no connection was made', async (_, cause, detail, notReceived) => {
    answer(Promise.reject(new TypeError('fetch failed', { cause })));
    const error = await failure(post());
    expect(error).toBeInstanceOf(SchoolHttpError);
    expect(error).toMatchObject({ status: null, detail, notReceived });
  });

  it('refuses a URL that is not http(s) before sending anything', async () => {
    const error = await failure(post(undefined, sampleDelivery({ adapter: 'json', url: 'file:///etc/passwd' })));
    expect(error).toBeInstanceOf(SchoolConfigError);
    expect(error).toMatchObject({ notReceived: true, detail: 'delivery settings: url is not an http(s) URL' });
    expect(http.calls).toHaveLength(0);
  });

  it('refuses an answer over 64 KB from its content-length, unread', async () => {
    const body = new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(new Uint8Array(10)) });
    answer(new Response(body, { status: 200, headers: { 'content-length': String(MAX_SCHOOL_ANSWER_BYTES + 1) } }));
    const error = await failure(post());
    expect(error).toEqual(new SchoolProtocolError(`the answer is larger than ${MAX_SCHOOL_ANSWER_BYTES} bytes`));
    expect(body.locked).toBe(false);
  });

  it('refuses a 4xx answer over 64 KB too (a 4xx is read for the rules)', async () => {
    answer(new Response('x'.repeat(MAX_SCHOOL_ANSWER_BYTES + 1), { status: 422 }));
    expect(await failure(post())).toBeInstanceOf(SchoolProtocolError);
  });

  it('reads an answer of exactly 64 KB', async () => {
    answer(new Response(`"${'a'.repeat(MAX_SCHOOL_ANSWER_BYTES - 2)}"`, { status: 200 }));
    await expect(post()).resolves.toMatchObject({ status: 200, isJson: true });
  });

  // Aborts before and while reading the body are the platform helper's (see the partner adapter's postJson spec); here: how they map.
  it('throws the signal\'s SchoolTimeoutError when aborted, or a new one for another reason', async () => {
    answer(Promise.reject(new DOMException('aborted', 'AbortError')));
    const reason = new SchoolTimeoutError(250);
    await expect(post(AbortSignal.abort(reason))).rejects.toBe(reason);
    const error = await failure(post(AbortSignal.abort()));
    expect(error).toBeInstanceOf(SchoolTimeoutError);
    expect(error).toMatchObject({ code: 'SCHOOL_TIMEOUT', detail: 'no answer in time' });
  });
});
