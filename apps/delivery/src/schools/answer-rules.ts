import { readByRules, UnreadableAnswerError } from '@lr/domain';
import type { ResponseRules } from '@lr/domain';
import type { SchoolOutcome } from './school-adapter';
import type { SchoolAnswer } from './school-http';
import { SchoolHttpError, SchoolProtocolError } from './school-errors';

/**
 * Reads a school's answer with response rules (libs/domain readByRules, the
 * one home of what rules mean, shared with the partner adapters). An answer
 * the rules cannot read is a SchoolHttpError when it is a 4xx (with the
 * answer's codes), else a SchoolProtocolError.
 */
export function readSchoolAnswer(answer: SchoolAnswer, rules: ResponseRules, strict: boolean): SchoolOutcome {
  try {
    return readByRules(answer, rules, strict);
  } catch (e) {
    if (!(e instanceof UnreadableAnswerError)) throw e;
    throw e.status === null ? new SchoolProtocolError(e.problem) : new SchoolHttpError(e.status, answer.codes);
  }
}
