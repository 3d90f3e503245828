import type { MockAgent } from 'undici';
import { mockHttpDispatcher } from '../../../../../test/support/mock-http-dispatcher';
import { PartnerHttpError, PartnerProtocolError, PartnerTimeoutError } from '../partner-errors';
import { MAX_RESPONSE_BYTES, postJson } from './post-json';

const URL_ = new URL('http://partner.test/partners/alpha/search?delay_ms=0');

// The partner errors built from libs/http-client's postJsonAnswer answers and failures; its wire behaviours (a body
// streamed past the cap, an abort while the body is read, redirects on a real connection) are in its own spec.
describe('postJson', () => {
  let mock: ReturnType<typeof mockHttpDispatcher>;
  let agent: MockAgent;
  const partner = () => agent.get('http://partner.test').intercept({ path: '/partners/alpha/search?delay_ms=0', method: 'POST' });
  const answer = (status: number, body: string, headers: Record<string, string> = {}) => partner().reply(status, body, { headers });
  const post = (signal = new AbortController().signal) => postJson(URL_, { a: 1 }, { signal, headers: { 'idempotency-key': 'k1' } });

  beforeEach(() => {
    mock = mockHttpDispatcher();
    agent = mock.agent;
  });
  afterEach(() => mock.restore());

  it('POSTs JSON and returns the parsed body', async () => {
    answer(200, JSON.stringify({ results: [] }));
    await expect(post()).resolves.toEqual({ results: [] });
    const sent = agent.getCallHistory()?.firstCall();
    expect(sent).toMatchObject({ fullUrl: URL_.toString(), method: 'POST', body: '{"a":1}' });
    expect(sent?.headers).toMatchObject({ 'content-type': 'application/json', 'idempotency-key': 'k1' });
  });

  it('refuses a redirect as PartnerHttpError without a status', async () => {
    answer(307, '', { location: 'http://169.254.169.254/latest/meta-data' });
    await expect(post()).rejects.toThrow(new PartnerHttpError(null, 'REDIRECT_REFUSED'));
    expect(agent.getCallHistory()?.calls()).toHaveLength(1);
  });

  it('throws PartnerHttpError with the status and the codes of a JSON error body on a non-2xx answer', async () => {
    answer(400, '{"error":"INVALID_PARAM","param":"delay_ms","message":"delay_ms must be an integer"}');
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
    answer(500, body);
    await expect(post()).rejects.toThrow(new PartnerHttpError(500, ''));
    expect(new PartnerHttpError(500, '').message).toBe('HTTP 500');
  });

  it('throws PartnerHttpError without a status when there is no HTTP answer', async () => {
    partner().replyWithError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4100'), { code: 'ECONNREFUSED' }));
    const error = await post().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartnerHttpError);
    expect((error as PartnerHttpError).status).toBeNull();
    expect((error as Error).message).toBe('no HTTP answer: ECONNREFUSED');
  });

  it('throws PartnerProtocolError for a body that is not JSON', async () => {
    answer(200, '<html>oops</html>');
    await expect(post()).rejects.toThrow(new PartnerProtocolError('the response body is not JSON'));
  });

  it('refuses a body over 1 MB from its content-length', async () => {
    answer(200, '{}', { 'content-length': String(MAX_RESPONSE_BYTES + 1) });
    await expect(post()).rejects.toThrow(new PartnerProtocolError(`the response body is larger than ${MAX_RESPONSE_BYTES} bytes`));
  });

  it('refuses a body over 1 MB without a content-length once it passes the cap', async () => {
    answer(200, `"${'a'.repeat(MAX_RESPONSE_BYTES - 1)}"`);
    await expect(post()).rejects.toThrow(new PartnerProtocolError(`the response body is larger than ${MAX_RESPONSE_BYTES} bytes`));
  });

  it('reads a body of exactly 1 MB', async () => {
    answer(200, `"${'a'.repeat(MAX_RESPONSE_BYTES - 2)}"`);
    await expect(post()).resolves.toHaveLength(MAX_RESPONSE_BYTES - 2);
  });

  it('throws PartnerTimeoutError (the signal reason) when aborted before the answer', async () => {
    partner().reply(200, '{"results":[]}').delay(10_000);
    const controller = new AbortController();
    const pending = post(controller.signal);
    const reason = new PartnerTimeoutError(250);
    setTimeout(() => controller.abort(reason), 10);
    await expect(pending).rejects.toBe(reason);
  });

  it('throws a new PartnerTimeoutError when aborted for another reason', async () => {
    partner().reply(200, '{"results":[]}').delay(10_000);
    const controller = new AbortController();
    const pending = post(controller.signal);
    setTimeout(() => controller.abort(), 10);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartnerTimeoutError);
    expect((error as PartnerTimeoutError).afterMs).toBeNull();
  });
});
