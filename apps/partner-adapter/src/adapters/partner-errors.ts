/**
 * How a partner call failed, each with a stable code. Adapters throw these;
 * the caller turns them into an answer's outcome (`timeout` or `error`).
 */
export abstract class PartnerCallError extends Error {
  abstract readonly code: string;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The call was aborted: its deadline (the partner's timeout, or the search closing) passed first. */
export class PartnerTimeoutError extends PartnerCallError {
  readonly code = 'PARTNER_TIMEOUT';

  constructor(readonly afterMs: number | null = null) {
    super(afterMs === null ? 'the partner did not answer in time' : `the partner did not answer within ${afterMs} ms`);
  }
}

/**
 * The partner answered with a non-2xx status, or there was no HTTP answer at
 * all (connection refused or reset, DNS, TLS): then `status` is null.
 */
export class PartnerHttpError extends PartnerCallError {
  readonly code = 'PARTNER_HTTP_ERROR';

  constructor(
    readonly status: number | null,
    detail: string,
  ) {
    super(status === null ? `no HTTP answer: ${detail}` : `HTTP ${status}${detail ? `: ${detail}` : ''}`);
  }
}

/** The partner answered 2xx with a body we cannot use (too large, not JSON, the wrong shape). */
export class PartnerProtocolError extends PartnerCallError {
  readonly code = 'PARTNER_PROTOCOL_ERROR';
}

/**
 * The partner's settings cannot be used (an environment variable a header
 * names is not set, a json partner without its search mapping): nothing was
 * sent. It is ours to fix, not the partner's, so it never counts against the
 * partner's circuit breaker.
 */
export class PartnerConfigError extends PartnerCallError {
  readonly code = 'PARTNER_CONFIG_ERROR';

  constructor(problem: string) {
    super(`partner settings: ${problem}`);
  }
}

/** The catalog names an adapter this build does not have. Never reaches the partner or its breaker. */
export class UnknownAdapterError extends PartnerCallError {
  readonly code = 'PARTNER_ADAPTER_UNKNOWN';

  constructor(readonly adapter: string) {
    super(`no partner adapter named "${adapter}"`);
  }
}

/** The partner's circuit breaker is open (or half-open with its one trial call in flight): not called. */
export class PartnerCircuitOpenError extends PartnerCallError {
  readonly code = 'PARTNER_CIRCUIT_OPEN';

  constructor(readonly partner: string) {
    super(`the circuit breaker of partner ${partner} is open`);
  }
}
