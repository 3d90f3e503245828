import {
  HttpAbortedError,
  HttpBodyTooLargeError,
  HttpTransportError,
  isReadableStatus,
  postJsonForRules,
  type RulesAnswer,
} from '@lr/http-client';
import type { SchoolDelivery } from './school-adapter';
import { SchoolConfigError, SchoolHttpError, SchoolProtocolError, SchoolTimeoutError } from './school-errors';
import { Environment, schoolHeaders } from './school-headers';

/** The most a school may send back: it is untrusted, and the body is held in memory. */
export const MAX_SCHOOL_ANSWER_BYTES = 64 * 1024;

/** A school's answer with a status that says something about the lead: 2xx, or 4xx. */
export type SchoolAnswer = RulesAnswer;

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
  let answer: RulesAnswer;
  try {
    answer = await postJsonForRules(url, body, { headers, signal, maxBytes: MAX_SCHOOL_ANSWER_BYTES, codeToken: SCHOOL_CODE });
  } catch (e) {
    throw schoolError(e);
  }
  if (!isReadableStatus(answer.status)) throw new SchoolHttpError(answer.status, answer.codes);
  return answer;
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
