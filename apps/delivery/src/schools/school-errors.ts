/**
 * How a delivery to a school failed, each with a stable `code` and a short
 * operator-facing `detail`. The detail holds our own words and codes only:
 * never free text from the school, never lead data, because it is logged and
 * stored (delivery_attempts.detail).
 */
export abstract class SchoolDeliveryError extends Error {
  abstract readonly code: string;

  constructor(readonly detail: string) {
    super(detail);
    this.name = new.target.name;
  }
}

/** No answer within the deadline. The school MAY have received the lead (and may still take it). */
export class SchoolTimeoutError extends SchoolDeliveryError {
  readonly code = 'SCHOOL_TIMEOUT';

  constructor(readonly afterMs: number | null = null) {
    super(afterMs === null ? 'no answer in time' : `no answer within ${afterMs} ms`);
  }
}

/**
 * The school answered with a status that is a failure (5xx, or a 4xx no
 * response rule reads), or there was no HTTP answer at all (`status` null:
 * connection refused or reset, DNS, TLS, a refused redirect).
 * `notReceived` is true only when we know the request never reached the
 * school (no connection was made, or we never sent it): then delivering again
 * cannot make a second lead.
 */
export class SchoolHttpError extends SchoolDeliveryError {
  readonly code: string = 'SCHOOL_HTTP_ERROR';

  constructor(
    readonly status: number | null,
    codes: string,
    readonly notReceived = false,
    detail = status === null ? `no HTTP answer: ${codes}` : `HTTP ${status}${codes ? `: ${codes}` : ''}`,
  ) {
    super(detail);
  }
}

/**
 * The delivery settings cannot be used (an environment variable a header
 * names is not set, an unknown adapter, a settings value the catalog check
 * would refuse). Nothing was sent. A SchoolHttpError with `status` null and
 * `notReceived` true, so a caller that handles the three failures handles it;
 * its own code tells an operator to fix the catalog or the environment.
 */
export class SchoolConfigError extends SchoolHttpError {
  override readonly code: string = 'SCHOOL_CONFIG_ERROR';

  constructor(problem: string) {
    super(null, '', true, `delivery settings: ${problem}`);
  }
}

/** The catalog names a delivery adapter this build does not have (see SchoolAdapters). */
export class UnknownSchoolAdapterError extends SchoolConfigError {
  override readonly code = 'SCHOOL_ADAPTER_UNKNOWN';

  constructor(readonly adapter: string) {
    super(`no school adapter named ${JSON.stringify(adapter.slice(0, 64))}`);
  }
}

/** The school answered (2xx, or a 4xx a rule reads) with a body we cannot read: we cannot tell whether it took the lead. */
export class SchoolProtocolError extends SchoolDeliveryError {
  readonly code = 'SCHOOL_PROTOCOL_ERROR';
}
