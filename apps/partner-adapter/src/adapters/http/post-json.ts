import { PartnerHttpError, PartnerProtocolError, PartnerTimeoutError } from '../partner-errors';

/** The most a partner may send back: a partner is untrusted, and a body is held in memory. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;
/** How much of an error body is read for its summary. */
const ERROR_BODY_BYTES = 4096;
/** Fields of a JSON error body worth naming in the operator-facing detail (e.g. the sandbox's INVALID_PARAM and its param). */
const ERROR_FIELDS = ['error', 'code', 'param'];
/** Codes and names only: free text could echo the lead back, and the detail is logged and stored. */
const TOKEN = /^(?=.*[A-Za-z])[A-Za-z0-9 _.:-]{1,100}$/;

export interface PostJsonOptions {
  headers?: Record<string, string>;
  signal: AbortSignal;
  maxBytes?: number;
}

/**
 * POSTs a JSON body and returns the parsed JSON of a 2xx answer. Throws
 * PartnerTimeoutError when `signal` aborts (before or while reading),
 * PartnerHttpError for a non-2xx answer or no answer, PartnerProtocolError for
 * a body over `maxBytes` or not JSON. Redirects are refused: a partner must
 * not be able to point our request somewhere else (our own network included).
 */
export async function postJson(url: URL, body: unknown, opts: PostJsonOptions): Promise<unknown> {
  const maxBytes = opts.maxBytes ?? MAX_RESPONSE_BYTES;
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
  if (res.status < 200 || res.status > 299) {
    const text = await readCapped(res, ERROR_BODY_BYTES, opts.signal, true).catch(() => '');
    throw new PartnerHttpError(res.status, errorSummary(text));
  }
  const text = await readCapped(res, maxBytes, opts.signal, false);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new PartnerProtocolError('the response body is not JSON');
  }
}

/** Reads the body as UTF-8, at most maxBytes: over that it throws, or with `truncate` returns what fits. */
async function readCapped(res: Response, maxBytes: number, signal: AbortSignal, truncate: boolean): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (!truncate && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge(maxBytes);
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
        if (!truncate) throw tooLarge(maxBytes);
        break;
      }
    }
  } catch (e) {
    if (e instanceof PartnerProtocolError) throw e;
    throw failure(e, signal);
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

function tooLarge(maxBytes: number): PartnerProtocolError {
  return new PartnerProtocolError(`the response body is larger than ${maxBytes} bytes`);
}

/** An aborted call is a timeout whatever fetch threw; anything else is the network's failure. */
function failure(e: unknown, signal: AbortSignal): Error {
  if (signal.aborted) return signal.reason instanceof PartnerTimeoutError ? signal.reason : new PartnerTimeoutError();
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return new PartnerHttpError(null, cause?.code ?? cause?.message ?? (e as Error).message ?? String(e));
}

/** `{"error":"INVALID_PARAM","param":"delay_ms",…}` → `INVALID_PARAM delay_ms`; anything else → ''. */
function errorSummary(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return '';
  }
  if (typeof body !== 'object' || body === null) return '';
  const fields = body as Record<string, unknown>;
  return ERROR_FIELDS.map((k) => fields[k])
    .filter((v): v is string => typeof v === 'string' && TOKEN.test(v))
    .join(' ');
}
