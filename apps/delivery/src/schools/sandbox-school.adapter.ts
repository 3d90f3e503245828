import { SANDBOX_ANSWER_RULES, schoolLeadDocument } from '@lr/domain';
import { readSchoolAnswer } from './answer-rules';
import type { SchoolAdapter, SchoolDelivery, SchoolOutcome } from './school-adapter';
import type { Environment } from './school-headers';
import { postToSchool } from './school-http';

/**
 * The sandbox school protocol (docs/sandbox.md, "School systems"): POST the
 * default lead document to `settings.url`; the answer is
 * `{result: accepted, id}`, `{result: rejected, reason}` or
 * `{result: duplicate, reason}`, and anything else a SchoolProtocolError.
 */
export class SandboxSchoolAdapter implements SchoolAdapter {
  constructor(private readonly env: Environment = process.env) {}

  async deliver(d: SchoolDelivery, signal: AbortSignal): Promise<SchoolOutcome> {
    const answer = await postToSchool(d, schoolLeadDocument(d), this.env, signal);
    return readSchoolAnswer(answer, SANDBOX_ANSWER_RULES, true);
  }
}
