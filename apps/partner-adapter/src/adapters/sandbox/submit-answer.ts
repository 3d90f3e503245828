import { PartnerProtocolError } from '../partner-errors';
import type { PartnerSubmitOutcome } from '../partner-adapter';
import { InvalidPartnerValue, isObject, nullableText } from '../offer-list/answer-checks';

/**
 * Reads a partner's submit answer: `{ "result": "accepted", "id" }`,
 * `{ "result": "rejected", "reason" }` or `{ "result": "duplicate" }` (the
 * school-system answers of docs/sandbox.md). Anything else is a protocol error:
 * we cannot tell whether the partner took the lead.
 */
export function parseSubmitAnswer(body: unknown): PartnerSubmitOutcome {
  if (!isObject(body)) throw new PartnerProtocolError('the submit answer is not a JSON object');
  try {
    switch (body.result) {
      case 'accepted':
        return { kind: 'accepted', partnerLeadId: nullableText(body.id, 'id', 200) };
      case 'rejected':
        return { kind: 'rejected', partnerReason: nullableText(body.reason, 'reason', 1000) };
      case 'duplicate':
        return { kind: 'duplicate' };
      default:
        throw new PartnerProtocolError('the submit answer has no result of accepted, rejected or duplicate');
    }
  } catch (e) {
    if (e instanceof InvalidPartnerValue) throw new PartnerProtocolError(`the submit answer's ${e.message}`);
    throw e;
  }
}
