import { MappingConfigError, mapFields, SANDBOX_ANSWER_RULES, schoolLeadDocument } from '@lr/domain';
import type { JsonDeliverySettings } from '@lr/domain';
import { readSchoolAnswer } from './answer-rules';
import type { SchoolAdapter, SchoolDelivery, SchoolOutcome } from './school-adapter';
import { SchoolConfigError } from './school-errors';
import type { Environment } from './school-headers';
import { postToSchool } from './school-http';

/**
 * A real school's JSON API, configured per offer (docs/delivery-adapters.md):
 * the body is built by `field_map` (default: the lead document), the answer
 * read by `response_rules` (default: the sandbox protocol's), where a 2xx
 * answer no rule matches is `rejected`. The mapping itself is libs/domain's
 * (mapping/), shared with the json partner adapter.
 */
export class JsonSchoolAdapter implements SchoolAdapter {
  constructor(private readonly env: Environment = process.env) {}

  async deliver(d: SchoolDelivery, signal: AbortSignal): Promise<SchoolOutcome> {
    const settings: Partial<JsonDeliverySettings> = d.settings.adapter === 'json' ? d.settings : {};
    const doc = schoolLeadDocument(d);
    const body = settings.field_map ? schoolBody(doc, settings.field_map) : doc;
    const answer = await postToSchool(d, body, this.env, signal);
    return readSchoolAnswer(answer, settings.response_rules ?? SANDBOX_ANSWER_RULES, false);
  }
}

function schoolBody(doc: object, fieldMap: Record<string, string>): Record<string, unknown> {
  try {
    return mapFields(doc, fieldMap);
  } catch (e) {
    throw e instanceof MappingConfigError ? new SchoolConfigError(e.problem) : e;
  }
}
