import { MAX_ACCEPTED_SUBMISSIONS, POLL_AFTER_MS, SearchAnswerV1, SearchState } from '@lr/contracts';

/** The contract's answer envelope of search and results; `poll_after_ms` only while not done. */
export function searchEnvelope(a: SearchAnswerV1) {
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
    offers: a.offers,
  };
}

/** A poll's answer from the search's hot state; the gateway itself closes a search past its 45 seconds. */
export function answerFromState(s: SearchState, now: Date = new Date()): SearchAnswerV1 {
  const done = s.processingDone || now.getTime() >= Date.parse(s.closesAt);
  return {
    searchId: s.searchId,
    processingDone: done,
    pollAfterMs: POLL_AFTER_MS,
    acceptedCount: s.acceptedCount,
    maxAcceptedSubmissions: MAX_ACCEPTED_SUBMISSIONS,
    trueExclusiveAccepted: s.trueExclusiveAccepted,
    offers: s.offers,
  };
}
