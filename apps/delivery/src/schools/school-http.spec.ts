import { MAX_SCHOOL_ANSWER_BYTES, postToSchool } from './school-http';
import { SchoolConfigError, SchoolHttpError, SchoolProtocolError, SchoolTimeoutError } from './school-errors';
import { httpStub, sampleDelivery } from '../../../../test/support/school-delivery';

describe('postToSchool', () => {
  const d = sampleDelivery({ adapter: 'json', url: 'https://api.school.example/leads?src=lr' });
  const http = httpStub();
  beforeEach(http.install);
  afterEach(http.restore);
  const answer = (status: number, body = '', headers: Record<string, string> = {}) => http.answer(status, body, headers);
  const post = (signal = new AbortController().signal, delivery = d) => postToSchool(delivery, { a: 1 }, {}, signal);
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: unknown) => e as Error,
    );

  it('POSTs JSON with the Idempotency-Key to the settings URL', async () => {
    answer(200, '{"status":"ok"}');
    await expect(post()).resolves.toEqual({ status: 200, json: { status: 'ok' }, isJson: true, codes: '' });
    const { url, method, body, headers } = http.sent();
    expect(url).toBe('https://api.school.example/leads?src=lr');
    expect({ method, body }).toEqual({ method: 'POST', body: { a: 1 } });
    expect(headers).toMatchObject({ 'content-type': 'application/json', 'idempotency-key': d.leadId });
  });

  it.each([301, 302, 307, 308])('refuses a %i redirect: no HTTP answer, the school did receive the request', async (status) => {
    answer(status, '', { location: 'http://10.0.0.1/steal' });
    const error = await failure(post());
    expect(error).toBeInstanceOf(SchoolHttpError);
    expect(error).toMatchObject({ status: null, detail: 'no HTTP answer: REDIRECT_REFUSED', notReceived: false });
    expect(http.calls).toHaveLength(1);
  });

  it('returns a 4xx answer for the rules to read, and a body that is not JSON as such', async () => {
    answer(409, '{"error":"DUPLICATE_LEAD","message":"Ada is already ours"}');
    await expect(post()).resolves.toEqual({
      status: 409,
      json: { error: 'DUPLICATE_LEAD', message: 'Ada is already ours' },
      isJson: true,
      codes: 'DUPLICATE_LEAD',
    });
    answer(200, 'Thanks!');
    await expect(post()).resolves.toMatchObject({ status: 200, isJson: false });
  });

  it.each([500, 503, 304])('throws SchoolHttpError for HTTP %i (the school received the request)', async (status) => {
    answer(status, status === 304 ? '' : '{"error":"INVALID_PARAM","param":"delay_ms"}');
    const error = await failure(post());
    expect(error).toBeInstanceOf(SchoolHttpError);
    expect(error).toMatchObject({ status, notReceived: false });
  });

  it.each([
    ['free text', '{"error":"Internal Server Error"}'],
    ['the lead', '{"error":"ada@example.com","code":"Ada Lovelace"}'],
    ['not JSON', 'Bad request for ada@example.com'],
  ])('keeps %s of an error body out of the detail', async (_, body) => {
    answer(500, body);
    const error = await failure(post());
    expect((error as SchoolHttpError).detail).toBe('HTTP 500');
  });

  it('names the codes of an error body in the detail', async () => {
    answer(500, '{"error":"INVALID_PARAM","param":"delay_ms","message":"delay_ms must be an integer"}');
    expect(await failure(post())).toMatchObject({ detail: 'HTTP 500: INVALID_PARAM delay_ms', code: 'SCHOOL_HTTP_ERROR' });
  });

  it.each<[string, string, boolean]>([
    ['a refused connection', 'ECONNREFUSED', true],
    ['a DNS failure', 'ENOTFOUND', true],
    ['a reset connection', 'ECONNRESET', false],
    ['a closed socket', 'UND_ERR_SOCKET', false],
  ])('throws SchoolHttpError without a status for %s, notReceived only when no connection was made', async (_, code, notReceived) => {
    http.fail(Object.assign(new Error(`failed: ${code}`), { code }));
    const detail = `no HTTP answer: ${code}`;
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

  it('refuses an answer over 64 KB from its content-length', async () => {
    answer(200, '{}', { 'content-length': String(MAX_SCHOOL_ANSWER_BYTES + 1) });
    const error = await failure(post());
    expect(error).toEqual(new SchoolProtocolError(`the answer is larger than ${MAX_SCHOOL_ANSWER_BYTES} bytes`));
  });

  it('refuses a 4xx answer over 64 KB too (a 4xx is read for the rules)', async () => {
    answer(422, 'x'.repeat(MAX_SCHOOL_ANSWER_BYTES + 1));
    expect(await failure(post())).toBeInstanceOf(SchoolProtocolError);
  });

  it('reads an answer of exactly 64 KB', async () => {
    answer(200, `"${'a'.repeat(MAX_SCHOOL_ANSWER_BYTES - 2)}"`);
    await expect(post()).resolves.toMatchObject({ status: 200, isJson: true });
  });

  // Aborts before and while reading the body are the platform helper's (see its spec); here: how they map.
  it("throws the signal's SchoolTimeoutError when aborted, or a new one for another reason", async () => {
    const reason = new SchoolTimeoutError(250);
    await expect(post(AbortSignal.abort(reason))).rejects.toBe(reason);
    const error = await failure(post(AbortSignal.abort()));
    expect(error).toBeInstanceOf(SchoolTimeoutError);
    expect(error).toMatchObject({ code: 'SCHOOL_TIMEOUT', detail: 'no answer in time' });
  });
});
