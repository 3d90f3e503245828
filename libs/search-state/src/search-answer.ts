import { MAX_ACCEPTED_SUBMISSIONS, type ResultEntry, type SearchAnswerState } from '@lr/contracts';

/** Suggested wait between polls while a search is open (contract: about one second). */
export const POLL_AFTER_MS = 1000;

/** The contract's answer envelope of search and results (affiliate-api.md, "Answer envelope of search and results"). */
export interface SearchAnswer {
  code: string;
  status: string;
  reason: string;
  success: boolean;
  svc_lead_id: string;
  processing_done: boolean;
  poll_after_ms?: number;
  accepted_count: number;
  max_accepted_submissions: number;
  true_exclusive_accepted: boolean;
  offers: ResultEntry[];
}

const COMMA = Buffer.from(',');

/**
 * `head` + the entries as a JSON array + `tail`, in one buffer (one copy of
 * each entry; nothing parsed). Entries are the JSON of result entries exactly
 * as shown, serialized once when the result was made.
 */
export function joinEntries(head: string, entries: readonly Buffer[], tail: string): Buffer {
  const parts: Buffer[] = [Buffer.from(`${head}[`)];
  entries.forEach((e, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(e);
  });
  parts.push(Buffer.from(`]${tail}`));
  return Buffer.concat(parts);
}

/**
 * The answer of search and results (affiliate-api.md, "Answer envelope of
 * search and results") as JSON bytes: the envelope, then the entries as they
 * are stored (never parsed and serialized again). `poll_after_ms` is present
 * only while `processing_done` is false; a search past its 45 seconds is done
 * even if a worker died. These bytes are the contract's answer: the
 * search-orchestrator answers a search with them (the gateway sends them on as
 * they are) and the gateway answers polls with them (docs/decisions.md).
 */
export function searchAnswerBody(
  state: SearchAnswerState,
  entries: readonly Buffer[],
  now: Date = new Date(),
): { body: Buffer; processingDone: boolean } {
  const processingDone = state.processingDone || now.getTime() >= Date.parse(state.closesAt);
  const head: Omit<SearchAnswer, 'offers'> = {
    code: 'OK',
    status: 'accepted',
    reason: 'OK',
    success: true,
    svc_lead_id: state.searchId,
    processing_done: processingDone,
    ...(processingDone ? {} : { poll_after_ms: POLL_AFTER_MS }),
    accepted_count: state.acceptedCount,
    max_accepted_submissions: MAX_ACCEPTED_SUBMISSIONS,
    true_exclusive_accepted: state.trueExclusiveAccepted,
  };
  const text = JSON.stringify(head);
  return { body: joinEntries(`${text.slice(0, -1)},"offers":`, entries, '}'), processingDone };
}
