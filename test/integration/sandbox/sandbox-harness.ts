import { createSandboxApp, RunningSandbox, SandboxAppOptions } from '../../../apps/sandbox/src/sandbox-app';
import { testConfig, uniqueSuffix } from '../../support/test-env';

/** The sandbox in-process on a free port, with quiet test logs. */
export function startSandbox(options: Omit<SandboxAppOptions, 'config' | 'port'> = {}): Promise<RunningSandbox> {
  return createSandboxApp({ ...options, port: 0, config: testConfig('sandbox', uniqueSuffix(), { LOG_LEVEL: 'error' }) });
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- a JSON answer of any shape; each test reads the fields it asserts on.
  ms: number;
}

/** A JSON request; gives up after timeoutMs (default 5 s) with an AbortError. */
export async function call(
  url: string,
  opts: { method?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<Answer> {
  const started = Date.now();
  const signal = opts.signal ?? AbortSignal.timeout(opts.timeoutMs ?? 5000);
  const res = await fetch(url, {
    method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
    headers: { ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null, ms: Date.now() - started };
}

/** Resolves with how the request failed (it must fail: a held request never answers). */
export async function expectNoAnswer(promise: Promise<unknown>): Promise<Error> {
  try {
    const answer = await promise;
    throw new Error(`expected no answer, got ${JSON.stringify(answer)}`);
  } catch (e) {
    if ((e as Error).message.startsWith('expected no answer')) throw e;
    return e as Error;
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A lead as our delivery service might send it (the sandbox stores whatever it gets). */
export function sampleLead(email = 'ada@example.com') {
  return { email, first_name: 'Ada', last_name: 'Lovelace', phone: '5551234567', zip_code: '90210', program_id: 'bsn' };
}
