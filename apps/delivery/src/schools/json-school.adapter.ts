import type { JsonDeliverySettings } from '@lr/domain';
import { readSchoolAnswer, SANDBOX_ANSWER_RULES } from './answer-rules';
import { mapFields } from './field-map';
import { leadDocument } from './lead-document';
import type { SchoolAdapter, SchoolDelivery, SchoolOutcome } from './school-adapter';
import type { Environment } from './school-headers';
import { postToSchool } from './school-http';

/**
 * A real school's JSON API, configured per offer (docs/delivery-adapters.md):
 * the body is built by `field_map` (default: the lead document), the answer
 * read by `response_rules` (default: the sandbox protocol's), where a 2xx
 * answer no rule matches is `rejected`.
 */
export class JsonSchoolAdapter implements SchoolAdapter {
  constructor(private readonly env: Environment = process.env) {}

  async deliver(d: SchoolDelivery, signal: AbortSignal): Promise<SchoolOutcome> {
    const settings: Partial<JsonDeliverySettings> = d.settings.adapter === 'json' ? d.settings : {};
    const doc = leadDocument(d);
    const body = settings.field_map ? mapFields(doc, settings.field_map) : doc;
    const answer = await postToSchool(d, body, this.env, signal);
    return readSchoolAnswer(answer, settings.response_rules ?? SANDBOX_ANSWER_RULES, false);
  }
}
