/** Small helpers for black-box HTTP tests against the gateway. */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- a JSON answer of any shape; each test reads the fields it asserts on.
  text: string;
  ms: number;
}

export async function call(
  baseUrl: string,
  method: string,
  path: string,
  opts: {
    key?: string;
    header?: 'bearer' | 'x-api-key';
    body?: unknown;
    rawBody?: string | Uint8Array;
    headers?: Record<string, string>;
  } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) {
    if (opts.header === 'x-api-key') headers['X-API-Key'] = opts.key;
    else headers.Authorization = `Bearer ${opts.key}`;
  }
  let body: string | Uint8Array | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['Content-Type'] = 'application/json';
  }
  const started = Date.now();
  const res = await fetch(baseUrl + path, { method, headers, body, signal: AbortSignal.timeout(20_000) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text, ms: Date.now() - started };
}
