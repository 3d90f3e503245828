import {
  errorCodes,
  HttpAbortedError,
  HttpBodyTooLargeError,
  HttpTransportError,
  isReadableStatus,
  postJsonAnswer,
  postJsonForRules,
} from '@lr/http-client';
import type { RulesAnswer } from '@lr/http-client';
import { PartnerHttpError, PartnerProtocolError, PartnerTimeoutError } from '../partner-errors';

/** The most a partner may send back: a partner is untrusted, and a body is held in memory. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

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
 * The HTTP work is libs/http-client's postJsonAnswer; this maps it to partner errors.
 */
export async function postJson(url: URL, body: unknown, opts: PostJsonOptions): Promise<unknown> {
  let answer;
  try {
    answer = await postJsonAnswer(url, body, { headers: opts.headers, signal: opts.signal, maxBytes: opts.maxBytes ?? MAX_RESPONSE_BYTES });
  } catch (e) {
    throw partnerError(e);
  }
  if (answer.status < 200 || answer.status > 299) throw new PartnerHttpError(answer.status, errorCodes(answer.text));
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    throw new PartnerProtocolError('the response body is not JSON');
  }
}

/**
 * POSTs a submit whose answer response rules read: a 2xx or 4xx answer is
 * returned (a 4xx is how many partners say duplicate or rejected); any other
 * status throws PartnerHttpError, and failures map as for postJson.
 */
export async function postJsonForAnswer(url: URL, body: unknown, opts: PostJsonOptions): Promise<RulesAnswer> {
  let answer: RulesAnswer;
  try {
    answer = await postJsonForRules(url, body, {
      headers: opts.headers,
      signal: opts.signal,
      maxBytes: opts.maxBytes ?? MAX_RESPONSE_BYTES,
    });
  } catch (e) {
    throw partnerError(e);
  }
  if (!isReadableStatus(answer.status)) throw new PartnerHttpError(answer.status, answer.codes);
  return answer;
}

function partnerError(e: unknown): unknown {
  if (e instanceof HttpAbortedError) return e.reason instanceof PartnerTimeoutError ? e.reason : new PartnerTimeoutError();
  if (e instanceof HttpTransportError) return new PartnerHttpError(null, e.code);
  if (e instanceof HttpBodyTooLargeError) return new PartnerProtocolError(e.message);
  return e;
}
