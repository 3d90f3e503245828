import { errorCodes, HttpAbortedError, HttpBodyTooLargeError, HttpTransportError, postJsonAnswer } from '@lr/platform';
import type { SchoolDelivery } from './school-adapter';
import { SchoolConfigError, SchoolHttpError, SchoolProtocolError, SchoolTimeoutError } from './school-errors';
import { Environment, schoolHeaders } from './school-headers';

/** The most a school may send back: it is untrusted, and the body is held in memory. */
export const MAX_SCHOOL_ANSWER_BYTES = 64 * 1024;

/** A school's answer with a status that says something about the lead: 2xx, or 4xx. */
export interface SchoolAnswer {
  status: number;
  /** The body parsed; meaningful only when isJson. */
  json: unknown;
  isJson: boolean;
  /** Short codes of a JSON error body (`error`, `code`, `param`), for a detail. */
  codes: string;
}

/** 2xx and 4xx answers are read (a 4xx may be how a school says duplicate or rejected); others are failures. */
const isReadable = (status: number) => (status >= 200 && status <= 299) || (status >= 400 && status <= 499);

/** One-word codes only: a school's error text may quote the lead. */
const SCHOOL_CODE = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

/**
 * POSTs `body` to the delivery's URL with its headers (Idempotency-Key
 * included). A 2xx or 4xx answer is returned for the adapter to read; every
 * failure is thrown as a School*Error: an abort as SchoolTimeoutError, no
 * answer or a 1xx/3xx/5xx as SchoolHttpError, a body over
 * MAX_SCHOOL_ANSWER_BYTES as SchoolProtocolError.
 */
export async function postToSchool(d: SchoolDelivery, body: unknown, env: Environment, signal: AbortSignal): Promise<SchoolAnswer> {
  const url = schoolUrl(d.settings.url);
  const headers = schoolHeaders(d, env);
  let answer;
  try {
    answer = await postJsonAnswer(url, body, { headers, signal, maxBytes: MAX_SCHOOL_ANSWER_BYTES, readsInFull: isReadable });
  } catch (e) {
    throw schoolError(e);
  }
  const codes = errorCodes(answer.text, SCHOOL_CODE);
  if (!isReadable(answer.status)) throw new SchoolHttpError(answer.status, codes);
  try {
    return { status: answer.status, json: JSON.parse(answer.text) as unknown, isJson: true, codes };
  } catch {
    return { status: answer.status, json: undefined, isJson: false, codes };
  }
}

function schoolUrl(raw: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new SchoolConfigError('url is not an http(s) URL');
  return url;
}

function schoolError(e: unknown): unknown {
  if (e instanceof HttpAbortedError) return e.reason instanceof SchoolTimeoutError ? e.reason : new SchoolTimeoutError();
  if (e instanceof HttpTransportError) return new SchoolHttpError(null, e.code, e.notSent);
  if (e instanceof HttpBodyTooLargeError) return new SchoolProtocolError(`the answer is larger than ${e.maxBytes} bytes`);
  return e;
}
