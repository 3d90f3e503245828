import { request, type Dispatcher } from 'undici';

/**
 * JSON over HTTP to a system we do not trust (a partner network, a school's
 * system): capped body reads, no redirects, failures as typed errors the
 * caller maps to its own. What an answer means is the caller's business.
 */

/** How much of a body read only for its summary (an error answer) is kept. */
export const SUMMARY_BODY_BYTES = 4096;

/** The signal aborted, before the answer or while its body was read. `reason` is the signal's. */
export class HttpAbortedError extends Error {
  constructor(readonly reason: unknown) {
    super('the HTTP call was aborted');
    this.name = 'HttpAbortedError';
  }
}

/**
 * No usable HTTP answer: connection refused or reset, DNS, TLS, a refused
 * redirect. `code` is the system's code (e.g. ECONNREFUSED, REDIRECT_REFUSED).
 * `notSent`: the request certainly never reached the server (no connection was made).
 */
export class HttpTransportError extends Error {
  constructor(
    readonly code: string,
    readonly notSent: boolean,
  ) {
    super(`no HTTP answer: ${code}`);
    this.name = 'HttpTransportError';
  }
}

/** The answer's body is larger than the caller allows. */
export class HttpBodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the response body is larger than ${maxBytes} bytes`);
    this.name = 'HttpBodyTooLargeError';
  }
}

export interface HttpAnswer {
  status: number;
  /** The body as UTF-8: whole for a status the caller reads in full, else its first SUMMARY_BODY_BYTES ('' when unreadable). */
  text: string;
}

export interface JsonPostOptions {
  headers?: Record<string, string>;
  signal: AbortSignal;
  /** The largest body read in full; a larger one throws HttpBodyTooLargeError. */
  maxBytes: number;
  /** Which statuses' bodies are read in full (default: 2xx). Others are read only for a summary, never failing. */
  readsInFull?: (status: number) => boolean;
}

const isSuccess = (status: number) => status >= 200 && status <= 299;

/**
 * Error codes of a connection that was never made: the request did not leave
 * this host. Anything later (reset, closed socket) may have reached the server.
 */
const NEVER_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'BAD_PORT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * The statuses fetch follows as redirects, refused as it refused them with
 * `redirect: 'error'`. Other 3xx (300, 304, …) are answers like any other.
 */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Ports fetch will not call (the Fetch standard's "bad ports": other protocols' servers); refused as BAD_PORT like fetch did. */
const BAD_PORTS = new Set([
  '1',
  '7',
  '9',
  '11',
  '13',
  '15',
  '17',
  '19',
  '20',
  '21',
  '22',
  '23',
  '25',
  '37',
  '42',
  '43',
  '53',
  '69',
  '77',
  '79',
  '87',
  '95',
  '101',
  '102',
  '103',
  '104',
  '109',
  '110',
  '111',
  '113',
  '115',
  '117',
  '119',
  '123',
  '135',
  '137',
  '139',
  '143',
  '161',
  '179',
  '389',
  '427',
  '465',
  '512',
  '513',
  '514',
  '515',
  '526',
  '530',
  '531',
  '532',
  '540',
  '548',
  '554',
  '556',
  '563',
  '587',
  '601',
  '636',
  '989',
  '990',
  '993',
  '995',
  '1719',
  '1720',
  '1723',
  '2049',
  '3659',
  '4045',
  '4190',
  '5060',
  '5061',
  '6000',
  '6566',
  '6665',
  '6666',
  '6667',
  '6668',
  '6669',
  '6679',
  '6697',
  '10080',
]);

/**
 * POSTs a JSON body and returns the answer's status and body text. Redirects
 * are refused (a server must not be able to point our request somewhere else,
 * our own network included). Throws HttpAbortedError when `signal` aborts,
 * HttpTransportError when there is no HTTP answer, HttpBodyTooLargeError for
 * a body over `maxBytes` (a larger content-length is refused unread; a
 * streamed body is cut off once it passes the cap).
 *
 * undici's request() and not fetch: fetch builds WHATWG Request, Headers,
 * Response, stream and AbortSignal objects for every call, which was most of
 * partner-adapter's own CPU per partner call; request() hands back a Node
 * stream over the same keep-alive connection pool (undici's global
 * dispatcher). What fetch did for us is done here: the Fetch standard's bad
 * ports, no credentials in the URL, redirects refused, `user-agent: node`.
 */
export async function postJsonAnswer(url: URL, body: unknown, opts: JsonPostOptions): Promise<HttpAnswer> {
  const { signal } = opts;
  if (signal.aborted) throw new HttpAbortedError(signal.reason);
  let res: Dispatcher.ResponseData;
  try {
    res = await request(url, {
      method: 'POST',
      // fetch's user-agent, kept: some servers (and the firewalls in front of them) refuse a request without one.
      headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'node', ...opts.headers },
      body: requestBody(url, body),
      signal,
    });
  } catch (e) {
    throw failure(e, signal);
  }
  if (REDIRECT_STATUSES.has(res.statusCode)) {
    // Read the (usually empty) body off the connection so it can be reused; never follow it.
    await res.body.dump().catch(() => undefined);
    throw new HttpTransportError('REDIRECT_REFUSED', false);
  }
  if ((opts.readsInFull ?? isSuccess)(res.statusCode)) {
    return { status: res.statusCode, text: await readCapped(res, opts.maxBytes, signal, false) };
  }
  const text = await readCapped(res, SUMMARY_BODY_BYTES, signal, true).catch(() => '');
  return { status: res.statusCode, text };
}

/**
 * The JSON to send, after the checks fetch made and undici does not: a URL
 * with credentials and a port of the Fetch standard's bad-port list are
 * refused, as a body JSON.stringify refuses (a BigInt, a cycle) is.
 */
function requestBody(url: URL, body: unknown): string {
  if (url.username !== '' || url.password !== '') throw new HttpTransportError('INVALID_REQUEST', true);
  if (BAD_PORTS.has(url.port) && (url.protocol === 'http:' || url.protocol === 'https:')) throw new HttpTransportError('BAD_PORT', true);
  try {
    return JSON.stringify(body);
  } catch {
    throw new HttpTransportError('INVALID_REQUEST', true);
  }
}

/** Reads the body as UTF-8, at most maxBytes: over that it throws, or with `truncate` returns what fits. */
function readCapped(res: Dispatcher.ResponseData, maxBytes: number, signal: AbortSignal, truncate: boolean): Promise<string> {
  const { body } = res;
  if (!truncate && Number(res.headers['content-length']) > maxBytes) {
    body.on('error', () => undefined).destroy(); // unread (the connection is closed); a destroyed body emits an error
    return Promise.reject(new HttpBodyTooLargeError(maxBytes));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    // Stays attached: a destroyed body emits an error after we settled.
    body.on('error', (e) => reject(failure(e, signal)));
    body.on('end', () => resolve(Buffer.concat(chunks, total).toString('utf8')));
    body.on('data', (chunk: Buffer) => {
      total += chunk.byteLength;
      chunks.push(chunk);
      if (total > maxBytes) {
        body.destroy();
        if (truncate) resolve(Buffer.concat(chunks, total).subarray(0, maxBytes).toString('utf8'));
        else reject(new HttpBodyTooLargeError(maxBytes));
      }
    });
  });
}

/** An aborted call is an abort whatever undici threw; anything else is the network's failure. */
function failure(e: unknown, signal: AbortSignal): Error {
  if (signal.aborted) return new HttpAbortedError(signal.reason);
  if (e instanceof HttpTransportError) return e;
  const { code, message, errors } = (e ?? {}) as { code?: unknown; message?: unknown; errors?: unknown };
  // A URL or header undici will not send (bad protocol, a header name or value with a newline): never sent, and the message is not kept.
  if (code === 'UND_ERR_INVALID_ARG') return new HttpTransportError('INVALID_REQUEST', true);
  // undici's errors carry the system's code themselves (ECONNREFUSED, UND_ERR_SOCKET, …), not in a `cause` as fetch's did.
  const name = typeof code === 'string' ? code : typeof message === 'string' && message !== '' ? message : 'UNKNOWN';
  return new HttpTransportError(name, NEVER_CONNECTED.has(name) || allNeverConnected(errors));
}

/** Happy eyeballs fails with an AggregateError of one error per address tried. */
function allNeverConnected(errors: unknown): boolean {
  return (
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every((x) => typeof (x as { code?: unknown }).code === 'string' && NEVER_CONNECTED.has((x as { code: string }).code))
  );
}

/** 2xx and 4xx answers may say something about a lead (a 4xx is how many systems say duplicate or rejected); others are failures. */
export function isReadableStatus(status: number): boolean {
  return (status >= 200 && status <= 299) || (status >= 400 && status <= 499);
}

/** An answer for response rules to read (libs/domain readByRules), with the short codes of its body for a failure's detail. */
export interface RulesAnswer {
  status: number;
  /** The body parsed; meaningful only when isJson. */
  json: unknown;
  isJson: boolean;
  /** Short codes of a JSON error body (`error`, `code`, `param`): see errorCodes. */
  codes: string;
}

/**
 * postJsonAnswer for a buyer (a school's system, a partner's submit) whose
 * answer response rules read: 2xx and 4xx bodies are read in full (up to
 * `maxBytes`) and parsed when they are JSON; any other status comes back with
 * only its codes, for the caller to report (isReadableStatus tells which).
 * Throws what postJsonAnswer throws.
 */
export async function postJsonForRules(
  url: URL,
  body: unknown,
  opts: Omit<JsonPostOptions, 'readsInFull'> & { codeToken?: RegExp },
): Promise<RulesAnswer> {
  const answer = await postJsonAnswer(url, body, { ...opts, readsInFull: isReadableStatus });
  const codes = errorCodes(answer.text, opts.codeToken);
  if (!isReadableStatus(answer.status)) return { status: answer.status, json: undefined, isJson: false, codes };
  try {
    return { status: answer.status, json: JSON.parse(answer.text) as unknown, isJson: true, codes };
  } catch {
    return { status: answer.status, json: undefined, isJson: false, codes };
  }
}

/** Fields of a JSON error body worth naming (e.g. the sandbox's INVALID_PARAM and its param). */
const ERROR_FIELDS = ['error', 'code', 'param'];
/** Codes and names only: free text could echo the lead, and a summary is logged and stored. */
export const ERROR_CODE_TOKEN = /^(?=.*[A-Za-z])[A-Za-z0-9 _.:-]{1,100}$/;

/** `{"error":"INVALID_PARAM","param":"delay_ms",…}` → `INVALID_PARAM delay_ms`; anything else → ''. */
export function errorCodes(text: string, token: RegExp = ERROR_CODE_TOKEN): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return '';
  }
  if (typeof body !== 'object' || body === null) return '';
  const fields = body as Record<string, unknown>;
  return ERROR_FIELDS.map((k) => fields[k])
    .filter((v): v is string => typeof v === 'string' && token.test(v))
    .join(' ');
}
