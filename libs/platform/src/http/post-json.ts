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

/** Messages undici gives instead of a code, as codes. */
const MESSAGE_CODES: Record<string, string> = { 'unexpected redirect': 'REDIRECT_REFUSED', 'bad port': 'BAD_PORT' };

/**
 * POSTs a JSON body and returns the answer's status and body text. Redirects
 * are refused (a server must not be able to point our request somewhere else,
 * our own network included). Throws HttpAbortedError when `signal` aborts,
 * HttpTransportError when there is no HTTP answer, HttpBodyTooLargeError for
 * a body over `maxBytes` (a larger content-length is refused unread; a
 * streamed body is cut off once it passes the cap).
 */
export async function postJsonAnswer(url: URL, body: unknown, opts: JsonPostOptions): Promise<HttpAnswer> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...opts.headers },
      body: JSON.stringify(body),
      redirect: 'error',
      signal: opts.signal,
    });
  } catch (e) {
    throw failure(e, opts.signal);
  }
  if ((opts.readsInFull ?? isSuccess)(res.status)) {
    return { status: res.status, text: await readCapped(res, opts.maxBytes, opts.signal, false) };
  }
  const text = await readCapped(res, SUMMARY_BODY_BYTES, opts.signal, true).catch(() => '');
  return { status: res.status, text };
}

/** Reads the body as UTF-8, at most maxBytes: over that it throws, or with `truncate` returns what fits. */
async function readCapped(res: Response, maxBytes: number, signal: AbortSignal, truncate: boolean): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (!truncate && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new HttpBodyTooLargeError(maxBytes);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      chunks.push(value);
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        if (!truncate) throw new HttpBodyTooLargeError(maxBytes);
        break;
      }
    }
  } catch (e) {
    if (e instanceof HttpBodyTooLargeError) throw e;
    throw failure(e, signal);
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

/** An aborted call is an abort whatever fetch threw; anything else is the network's failure. */
function failure(e: unknown, signal: AbortSignal): Error {
  if (signal.aborted) return new HttpAbortedError(signal.reason);
  const cause = (e as { cause?: { code?: unknown; message?: unknown; errors?: unknown } }).cause;
  // fetch rejects without a cause only for a request it would not build (bad URL or header); its message may quote a header value.
  if (!cause) return new HttpTransportError('INVALID_REQUEST', true);
  const raw = typeof cause.code === 'string' ? cause.code : typeof cause.message === 'string' ? cause.message : 'UNKNOWN';
  const code = MESSAGE_CODES[raw] ?? raw;
  return new HttpTransportError(code, NEVER_CONNECTED.has(code) || allNeverConnected(cause.errors));
}

/** Happy eyeballs fails with an AggregateError of one error per address tried. */
function allNeverConnected(errors: unknown): boolean {
  return (
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every((x) => typeof (x as { code?: unknown }).code === 'string' && NEVER_CONNECTED.has((x as { code: string }).code))
  );
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
