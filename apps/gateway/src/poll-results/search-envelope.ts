import { searchAnswerBody } from '@lr/contracts';
export type { SearchAnswer } from '@lr/contracts';
import type { PollView } from './search-store';

/**
 * A poll's answer as JSON bytes: the envelope, then the stored entries as they
 * are (never parsed and re-serialized; libs/contracts searchAnswerBody, the
 * same the search-orchestrator answers a search with).
 */
export function pollBody(view: PollView, now: Date = new Date()): { body: Buffer; processingDone: boolean } {
  return searchAnswerBody(view.meta, view.entries, now);
}
