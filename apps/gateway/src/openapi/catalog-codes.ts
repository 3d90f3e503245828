import type { ApiCode } from '@lr/contracts';
import { Decision, REFUSAL, SUBMIT } from '@lr/domain';

/*
 * The answer vocabulary the document lists, read from the decision catalog
 * (libs/domain decisions) that builds every answer the gateway sends, so a new
 * code, `error` value or retry rule reaches the document without being written
 * twice.
 */

type CatalogGroup = Record<string, Decision | ((...args: never[]) => Decision)>;

/**
 * Every answer of a catalog group. A builder is called with a placeholder for
 * each argument it has no default for: only the fields its arguments do not
 * change (HTTP status, code, status, retryable, error, whether it has a retry
 * delay) are read from what it returns.
 */
function decisionsOf(group: CatalogGroup): Decision[] {
  return Object.values(group).map((entry) =>
    typeof entry === 'function' ? (entry as (...args: string[]) => Decision)(...Array<string>(entry.length).fill('1')) : entry,
  );
}

const unique = <T>(values: T[]): T[] => [...new Set(values)];

const SUBMIT_DECISIONS = decisionsOf(SUBMIT);
const REFUSALS = decisionsOf(REFUSAL);

/** The codes of a submit answer (HTTP 200 or 202): a decision by the service or the buyer, or `PENDING`. */
export const SUBMIT_CODES = unique(SUBMIT_DECISIONS.map((d) => d.code));
export type SubmitCode = (typeof SUBMIT_CODES)[number];

/** The codes of an error answer (4xx, 5xx). */
export const ERROR_CODES = unique(REFUSALS.map((d) => d.code));

/** The `error` values an error answer may carry. */
export const ERROR_DETAILS = unique(REFUSALS.flatMap((d) => (d.error === undefined ? [] : [d.error])));

/** The PENDING answer's code and status (HTTP 202). */
export const PENDING = { code: SUBMIT.pending.code, status: SUBMIT.pending.status } as const;

/**
 * What every error answer of one HTTP status with one of these codes has in
 * common, as the catalog's entries say: its `status` values, `retryable` when
 * they all agree (true on 429 and 503, false elsewhere), and whether each
 * carries `retry_after_seconds`.
 */
export function refusalTraits(http: number, codes: readonly ApiCode[]): { statuses: string[]; retryable?: boolean; retryAfter: boolean } {
  const matching = REFUSALS.filter((d) => d.http === http && codes.includes(d.code));
  const missing = codes.filter((c) => !matching.some((d) => d.code === c));
  if (missing.length > 0) throw new Error(`the decision catalog has no ${http} answer with code ${missing.join(', ')}`);
  const retryable = unique(matching.map((d) => d.retryable));
  return {
    statuses: unique(matching.map((d) => d.status)),
    ...(retryable.length === 1 ? { retryable: retryable[0] } : {}),
    retryAfter: matching.every((d) => d.retryAfterSeconds !== undefined),
  };
}
