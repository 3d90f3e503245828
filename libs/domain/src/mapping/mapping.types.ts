/**
 * The configurable JSON mapping a catalog gives a school's `delivery` and a
 * partner's `search` and `submit` (docs/delivery-adapters.md,
 * docs/partner-adapter.md): how an answer is read.
 */

export type JsonScalar = string | number | boolean | null;

/**
 * When an answer counts as one outcome. Every condition given must hold: the
 * HTTP status is one of `http_status`, and the JSON value at `path` is one of
 * `in` (or, with `exists`, is present and not null, or absent). Without
 * `http_status` a match only looks at 2xx answers.
 */
export interface AnswerMatch {
  http_status?: number[];
  path?: string;
  in?: JsonScalar[];
  exists?: boolean;
}

/** One match, or a list of which any one is enough. */
export type AnswerMatches = AnswerMatch | AnswerMatch[];

/** Tried in the order accepted, duplicate, rejected; a 2xx JSON answer none matches is rejected. */
export interface ResponseRules {
  accepted: AnswerMatches;
  duplicate?: AnswerMatches;
  rejected?: AnswerMatches;
  /** Where an accepted answer holds the buyer's (school's or partner's) id of the lead. */
  buyer_lead_id_path?: string;
  /** Where a duplicate or rejected answer holds the buyer's reason (kept for operators only). */
  reason_path?: string;
}

/** A value (`true`), a map whose keys are not fixed (`'any-key'`), or an object with these fields. */
export type DocumentShape = true | 'any-key' | { readonly [field: string]: DocumentShape };
