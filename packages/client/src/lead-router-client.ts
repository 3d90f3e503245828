import { createClient, createConfig, type Client } from './generated/client';
import { getLeadStatus, pollResults, search, submitLead } from './generated/sdk.gen';
import type {
  GetLeadStatusErrors,
  GetLeadStatusResponses,
  LeadsRequest,
  PollResultsErrors,
  PollResultsResponses,
  SearchAnswer,
  SearchErrors,
  SearchRequest,
  SearchResponses,
  SubmitLeadErrors,
  SubmitLeadResponses,
} from './generated/types.gen';
import { DEFAULT_RETRY_POLICY, networkRetryDelayMs, retryDelayMs, type RetryPolicy } from './retry';

/** The numbers below N, as a union (0 | 1 | … | N-1). */
type Below<N extends number, Acc extends number[] = []> = Acc['length'] extends N ? Acc[number] : Below<N, [...Acc, Acc['length']]>;
/** Every HTTP status of an error answer. */
type ErrorStatus = Exclude<Below<600>, Below<400>>;

/**
 * One answer of the API: its HTTP status with the body the document gives that
 * status. Narrowing on `status` (or on `ok`) gives each status its own body: a
 * 202 is `PENDING`, a 429 has `retry_after_seconds`. An error status the
 * document does not list for the operation has the plain error envelope.
 */
export type Answer<Responses, Errors> =
  | { [S in keyof Responses & number]: { ok: true; status: S; body: Responses[S]; headers: Headers } }[keyof Responses & number]
  | { [S in keyof Errors & number]: { ok: false; status: S; body: Errors[S]; headers: Headers } }[keyof Errors & number]
  | ('default' extends keyof Errors
      ? { ok: false; status: Exclude<ErrorStatus, keyof Errors>; body: Errors['default' & keyof Errors]; headers: Headers }
      : never);

export type SearchOutcome = Answer<SearchResponses, SearchErrors>;
export type ResultsOutcome = Answer<PollResultsResponses, PollResultsErrors>;
export type SubmitOutcome = Answer<SubmitLeadResponses, SubmitLeadErrors>;
export type LeadStatusOutcome = Answer<GetLeadStatusResponses, GetLeadStatusErrors>;

export interface LeadRouterClientOptions {
  /** The service's base address, e.g. `https://api.example.com` (no trailing slash). */
  baseUrl: string;
  /** The affiliate's API key, sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** When to send a call again (retry.ts); defaults to 3 retries, 500 ms first back-off, 8 s at most. */
  retry?: Partial<RetryPolicy>;
  /** When `poll_after_ms` is missing from an open search (the contract says it is present): wait this long. */
  defaultPollAfterMs?: number;
  /** Stop polling after this long and answer the last poll (a search closes after 45 s). Default 60 s. */
  pollTimeoutMs?: number;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What the generated operations return with `throwOnError: false`; `response` is missing when the request never got one. */
interface Sent {
  data?: unknown;
  error?: unknown;
  response?: Response;
}

/** Options of one search or submit. */
export interface CallOptions {
  /**
   * The call's `Idempotency-Key` (1 to 255 printable ASCII characters). Default:
   * a new UUID per call, reused on its retries. Pass your own (stored with
   * your record of the lead) to retry across a restart of your process.
   */
  idempotencyKey?: string;
}

/**
 * The affiliate flow of the contract (affiliate-api.md, "Flow"): search, poll
 * the results (every `poll_after_ms`) until `processing_done`, submit the
 * chosen result or post a lead directly. Each call is sent again only when the
 * retry policy says so (a 429 after `Retry-After`, a retryable 503 with
 * back-off); an answer is otherwise returned as it came, typed by its status.
 * A search and a submit carry an `Idempotency-Key` (a new UUID per call, or
 * the caller's own), the same on every retry of the call, so the service
 * answers a retry with the original answer and never decides twice: they are
 * also sent again after a network failure (a broken connection, a timeout).
 * Other calls throw on a network failure.
 */
export class LeadRouterClient {
  /** The generated client, configured with the base address and the key: pass it as `client` to the generated operations. */
  readonly client: Client;
  private readonly retry: RetryPolicy;
  private readonly defaultPollAfterMs: number;
  private readonly pollTimeoutMs: number;

  constructor(options: LeadRouterClientOptions) {
    const { apiKey } = options;
    this.client = createClient(
      createConfig({
        baseUrl: options.baseUrl,
        // One header: the operations accept either scheme, and the generated client would otherwise send both.
        auth: (scheme) => (scheme.type === 'http' ? apiKey : undefined),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    );
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.defaultPollAfterMs = options.defaultPollAfterMs ?? 1000;
    this.pollTimeoutMs = options.pollTimeoutMs ?? 60_000;
  }

  /** POST /api/v1/engine/search: the first results. `idempotencyKey`: the call's key (default a new UUID). */
  search(body: SearchRequest, options: CallOptions = {}): Promise<SearchOutcome> {
    const headers = { 'Idempotency-Key': options.idempotencyKey ?? globalThis.crypto.randomUUID() };
    return this.send<SearchOutcome>(() => search({ client: this.client, body, headers }), true);
  }

  /** GET /api/v1/engine/results/{svc_lead_id}: every result of the search so far. */
  results(svcLeadId: string): Promise<ResultsOutcome> {
    return this.send<ResultsOutcome>(() => pollResults({ client: this.client, path: { svc_lead_id: svcLeadId } }));
  }

  /**
   * Polls the search of `answer` until `processing_done`, waiting
   * `poll_after_ms` before each poll, and answers the last poll: the whole
   * list, or the first error. Past `pollTimeoutMs` it answers the last poll
   * even if the search is still open.
   */
  async pollUntilDone(answer: SearchAnswer): Promise<ResultsOutcome> {
    const deadline = Date.now() + this.pollTimeoutMs;
    let current = answer;
    for (;;) {
      await sleep(current.poll_after_ms ?? this.defaultPollAfterMs);
      const polled = await this.results(current.svc_lead_id);
      if (!polled.ok || polled.body.processing_done || Date.now() >= deadline) return polled;
      current = polled.body;
    }
  }

  /** Search, then poll until every offer has answered: the search's answer if it is already done (or refused), else the last poll's. */
  async searchUntilDone(body: SearchRequest): Promise<SearchOutcome | ResultsOutcome> {
    const first = await this.search(body);
    if (!first.ok || first.body.processing_done) return first;
    return this.pollUntilDone(first.body);
  }

  /**
   * POST /api/v1/engine/leads: a result submit or a direct post. A decision
   * (200, or 202 `PENDING`) is returned, never sent again: read `status` and
   * `code`. A `PENDING` lead's decision is read with `leadStatus`.
   */
  submit(body: LeadsRequest, options: CallOptions = {}): Promise<SubmitOutcome> {
    const headers = { 'Idempotency-Key': options.idempotencyKey ?? globalThis.crypto.randomUUID() };
    return this.send<SubmitOutcome>(() => submitLead({ client: this.client, body, headers }), true);
  }

  /** GET /api/v1/engine/leads/{svc_lead_id}: a submit's decision as it stands (an addition to the contract). */
  leadStatus(svcLeadId: string): Promise<LeadStatusOutcome> {
    return this.send<LeadStatusOutcome>(() => getLeadStatus({ client: this.client, path: { svc_lead_id: svcLeadId } }));
  }

  /**
   * Sends one call, and again while the retry policy says so; the last answer.
   * `keyed`: the call carries an Idempotency-Key, so a network failure is sent
   * again too (with back-off), as many times as the policy allows.
   */
  private async send<A extends { status: number }>(call: () => Promise<Sent>, keyed = false): Promise<A> {
    for (let attempt = 1; ; attempt += 1) {
      let sent: Sent;
      try {
        sent = await call();
      } catch (e) {
        sent = { error: e };
      }
      const { data, error, response } = sent;
      if (!response) {
        const delay = keyed ? networkRetryDelayMs(attempt, this.retry) : undefined;
        if (delay === undefined) throw error instanceof Error ? error : new Error(`request failed: ${String(error)}`);
        await sleep(delay);
        continue;
      }
      const answer = { ok: response.ok, status: response.status, body: response.ok ? data : error, headers: response.headers };
      const delay = retryDelayMs(answer, attempt, this.retry);
      if (delay === undefined) return answer as unknown as A;
      await sleep(delay);
    }
  }
}
