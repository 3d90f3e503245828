import { MAX_ACCEPTED_SUBMISSIONS, POLL_AFTER_MS, ResultEntry, SearchAnswerV1 } from '@lr/contracts';
import { joinEntries } from '@lr/redis';
import type { PollView } from './search-store';

/** The contract's answer envelope of search and results, without `offers`; `poll_after_ms` only while not done. */
function envelopeHead(a: Omit<SearchAnswerV1, 'offers'>) {
  return {
    code: 'OK',
    status: 'accepted',
    reason: 'OK',
    success: true,
    svc_lead_id: a.searchId,
    processing_done: a.processingDone,
    ...(a.processingDone ? {} : { poll_after_ms: a.pollAfterMs ?? POLL_AFTER_MS }),
    accepted_count: a.acceptedCount,
    max_accepted_submissions: a.maxAcceptedSubmissions,
    true_exclusive_accepted: a.trueExclusiveAccepted,
  };
}

export function searchEnvelope(a: SearchAnswerV1 & { offers: ResultEntry[] }) {
  return { ...envelopeHead(a), offers: a.offers };
}

/**
 * A poll's answer as JSON bytes: the envelope, then the stored entries as they
 * are (never parsed and re-serialized). The gateway itself closes a search past
 * its 45 seconds, so a search is never open longer even if a worker died.
 */
export function pollBody(view: PollView, now: Date = new Date()): { body: Buffer; processingDone: boolean } {
  const m = view.meta;
  const processingDone = m.processingDone || now.getTime() >= Date.parse(m.closesAt);
  const head = JSON.stringify(
    envelopeHead({
      searchId: m.searchId,
      processingDone,
      acceptedCount: m.acceptedCount,
      maxAcceptedSubmissions: MAX_ACCEPTED_SUBMISSIONS,
      trueExclusiveAccepted: m.trueExclusiveAccepted,
    }),
  );
  return { body: joinEntries(`${head.slice(0, -1)},"offers":`, view.entries, '}'), processingDone };
}

/** The contract's answer envelope of search and results, as sent (documented by SearchAnswerSchema). */
export type SearchAnswer = ReturnType<typeof searchEnvelope>;
