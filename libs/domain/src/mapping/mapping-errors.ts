/**
 * The two ways a configured JSON mapping (a school's `delivery`, a partner's
 * `search` and `submit`; docs/delivery-adapters.md, docs/partner-adapter.md)
 * can fail. Each app turns them into its own typed errors. Messages hold our
 * own words, paths and codes only, never a value from the lead or the other
 * system: they are logged and stored.
 */

/** The settings cannot be used as they are (a target that clashes, an unset environment variable): nothing was sent. */
export class MappingConfigError extends Error {
  constructor(readonly problem: string) {
    super(problem);
    this.name = 'MappingConfigError';
  }
}

/**
 * An answer that does not fit its mapping. `status` is set when the answer is
 * a 4xx no rule reads (the caller reports it as an HTTP failure with that
 * status); otherwise the body is what could not be read.
 */
export class UnreadableAnswerError extends Error {
  constructor(
    readonly problem: string,
    readonly status: number | null = null,
  ) {
    super(problem);
    this.name = 'UnreadableAnswerError';
  }
}
