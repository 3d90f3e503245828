import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  ApiCode,
  ApiEnvelope,
  FormField,
  FormFieldOption,
  MAX_ACCEPTED_SUBMISSIONS,
  OUTCOME_STATUSES,
  OutcomeStatus,
  ResultEntry,
  ResultProgram,
} from '@lr/contracts';
import type { DupeCheckAnswer } from '../pre-check/pre-check.usecase';
import type { OptOutAnswer } from '../opt-outs/record-opt-out.usecase';
import type { FieldProblem } from '../http/validation';
import {
  DUPE_CHECK_NOT_AVAILABLE,
  type LeadStatusBody,
  OFFER_TYPES,
  OfferType,
  OK,
  RETURNED,
  type ReturnAnswerBody,
  SUBMIT,
  type SubmitAnswerBody,
  type SubmitDisposition,
} from '@lr/domain';
import { POLL_AFTER_MS, type SearchAnswer } from '@lr/search-state';
import { ERROR_CODES, ERROR_DETAILS, SUBMIT_CODES, type SubmitCode } from './catalog-codes';
import { ApiSchemaWith } from './schema-keywords';

/*
 * The answers of the affiliate API as OpenAPI schemas (affiliate-api.md:
 * "Answer envelope", "Result entry", "Submit answer", "Duplicate pre-check
 * answer", "Errors"). Each class `implements` the type the gateway really
 * sends, so a renamed or retyped field breaks the build instead of leaving the
 * document behind. Required-ness follows the contract's tables; `code`
 * lists only the codes each kind of answer carries (catalog-codes.ts), and a
 * key the gateway sends as null is nullable.
 */

@ApiSchema({ name: 'FormFieldOption' })
class FormFieldOptionSchema implements FormFieldOption {
  @ApiProperty() value: string;
  @ApiProperty() label: string;
}

@ApiSchema({ name: 'FormFieldRequiredWhen' })
class RequiredWhenSchema {
  @ApiProperty({
    type: [String],
    description: 'Program values (`programs[].value`): the question is required only when one of these is chosen.',
  })
  program_ids: string[];
}

@ApiSchema({ name: 'FormField', description: 'A question the result needs answered on submit, sent as a top-level key named `name`.' })
class FormFieldSchema implements FormField {
  @ApiProperty() name: string;
  @ApiPropertyOptional({ type: String, nullable: true }) label: string | null;
  @ApiProperty({ example: 'select', description: 'For example `select`.' }) type: string;
  @ApiProperty() required: boolean;
  @ApiPropertyOptional({ type: RequiredWhenSchema }) required_when?: RequiredWhenSchema;
  @ApiPropertyOptional({ type: [FormFieldOptionSchema], description: 'For a `select`, the answer is one of `options[].value`.' })
  options?: FormFieldOptionSchema[];
}

@ApiSchema({ name: 'ResultProgram' })
class ResultProgramSchema implements ResultProgram {
  @ApiProperty({ description: 'Sent as `program_id` on submit.' }) value: string;
  @ApiProperty() label: string;
  @ApiPropertyOptional({ description: "The caller's payout for the program; absent when none is configured." }) payout?: number;
}

@ApiSchema({ name: 'ResultOffer' })
class ResultOfferSchema {
  @ApiPropertyOptional({ format: 'uuid', description: 'The offer id.' }) id: string;
  @ApiPropertyOptional() name: string;
  @ApiPropertyOptional({ enum: OFFER_TYPES }) offer_type: OfferType;
  @ApiPropertyOptional({ type: Boolean, nullable: true }) is_exclusive: boolean | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'The consent statement to show with this result.' }) tcpa_text:
    string | null;
}

@ApiSchema({ name: 'ResultSchool' })
class ResultSchoolSchema {
  @ApiPropertyOptional() name: string;
  @ApiPropertyOptional({ type: String, nullable: true }) logo_url: string | null;
}

@ApiSchema({ name: 'ResultEntry', description: 'One result of a search. Best first: the service orders `offers`; clients keep the order.' })
export class ResultEntrySchema implements ResultEntry {
  @ApiProperty({ description: 'Submit this id to the leads endpoint.' }) svc_result_id: string;
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'Campaign the result is sold under.' })
  campaign_id: string | null;
  @ApiProperty({ type: ResultOfferSchema }) offer: ResultOfferSchema;
  @ApiPropertyOptional({ type: ResultSchoolSchema }) school: ResultSchoolSchema;
  @ApiProperty({ type: [ResultProgramSchema] }) programs: ResultProgramSchema[];
  @ApiPropertyOptional({
    description: "The caller's best payout for the result; never the offer's own price; absent when none is configured.",
  })
  payout?: number;
  @ApiProperty({ type: [FormFieldSchema], description: 'Questions the result needs answered on submit, by name.' })
  form_fields: FormFieldSchema[];
  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true, description: 'Submit before this time.' })
  expires_at: string | null;
}

@ApiSchema({
  name: 'SearchAnswer',
  description: 'The answer envelope of search and results. Every poll returns all results so far, not only new ones.',
})
export class SearchAnswerSchema implements SearchAnswer {
  @ApiProperty({ enum: [OK.code], description: '`OK` on success.' }) code: 'OK';
  @ApiProperty({ enum: [OK.status] }) status: 'accepted';
  @ApiProperty({ example: OK.reason, description: 'Short sentence-case explanation.' }) reason: string;
  @ApiProperty({ enum: [true] }) success: true;
  @ApiProperty({ format: 'uuid', description: 'The search id. Poll with it; send it as `search_lead_id` on submit.' }) svc_lead_id: string;
  @ApiProperty({
    description: 'False while partner offers are still answering; true once all have answered or the search is 45 seconds old.',
  })
  processing_done: boolean;
  @ApiPropertyOptional({
    type: 'integer',
    example: POLL_AFTER_MS,
    description: 'Present while `processing_done` is false: wait this long before the next poll.',
  })
  poll_after_ms?: number;
  @ApiProperty({ type: 'integer' }) accepted_count: number;
  @ApiProperty({ type: 'integer', example: MAX_ACCEPTED_SUBMISSIONS }) max_accepted_submissions: number;
  @ApiProperty() true_exclusive_accepted: boolean;
  @ApiProperty({ type: [ResultEntrySchema], description: 'Best first. The service orders it; clients keep the order.' })
  offers: ResultEntrySchema[];
}

@ApiSchemaWith(
  { name: 'SubmitDisposition', description: 'Additional properties allowed; clients ignore keys they do not use.' },
  { additionalProperties: true },
)
class SubmitDispositionSchema implements SubmitDisposition {
  @ApiProperty({ type: String, enum: ['service', 'buyer', null], nullable: true, description: 'Null while the decision is pending.' })
  decided_by: 'service' | 'buyer' | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) decided_at: string | null;
  @ApiProperty({ format: 'uuid' }) offer_id: string;
  @ApiPropertyOptional({ description: 'On a result submit.' }) svc_result_id?: string;
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'On a result submit: the search id.' })
  search_lead_id?: string | null;
}

@ApiSchema({
  name: 'SubmitAnswer',
  description:
    'The outcome of a submit; clients read `status` and `code`, not the HTTP status. `PENDING` is not final: ' +
    '`GET /api/v1/engine/leads/{svc_lead_id}` returns the decision.',
})
export class SubmitAnswerSchema implements SubmitAnswerBody {
  @ApiProperty({
    enum: SUBMIT_CODES,
    example: SUBMIT.accepted.code,
    description: `\`${SUBMIT.accepted.code}\`, \`${SUBMIT.pending.code}\` (not final), or the reason the lead was not taken. Error codes come only in the error envelope.`,
  })
  code: SubmitCode;
  @ApiProperty({ enum: OUTCOME_STATUSES, example: 'accepted' }) status: OutcomeStatus;
  @ApiProperty({
    example: SUBMIT.accepted.reason,
    description: 'Short sentence-case explanation; a reason ending in ` - Client` means the school’s own system decided.',
  })
  reason: string;
  @ApiPropertyOptional({ enum: ['buyer'], description: "Present on refusals the buyer's system decided." }) source?: 'buyer';
  @ApiProperty() success: boolean;
  @ApiProperty() accepted: boolean;
  @ApiProperty({ enum: [false] }) retryable: false;
  @ApiProperty({ format: 'uuid', description: 'The id of the lead this submit created, not the search id.' }) svc_lead_id: string;
  @ApiPropertyOptional({ description: 'Accepted: the payout booked (absent when none is configured). Not accepted: 0.' }) payout?: number;
  @ApiProperty() message: string;
  @ApiPropertyOptional({ description: 'For a refusal about one field of the request: its name.' }) field?: string;
  @ApiProperty({ type: SubmitDispositionSchema }) disposition: SubmitDispositionSchema;
  @ApiPropertyOptional({ enum: [false], description: 'Test leads only.' }) submitted?: false;
  @ApiPropertyOptional({ enum: [true], description: 'Test leads only.' }) test_lead?: true;
}

@ApiSchema({ name: 'LeadReturn', description: 'A return of the lead by the school that bought it (docs/returns.md).' })
class LeadReturnSchema {
  @ApiProperty({ format: 'date-time', description: 'When the return was booked.' }) at: string;
  @ApiProperty({ example: 'wrong_number', description: 'The school’s reason code, one of the offer’s.' }) reason: string;
}

@ApiSchema({
  name: 'LeadStatusAnswer',
  description: 'The submit answer as it stands, and `returned`: the school’s return of the lead, or null when it was not returned.',
})
export class LeadStatusAnswerSchema extends SubmitAnswerSchema implements LeadStatusBody {
  @ApiProperty({ type: LeadReturnSchema, nullable: true, description: 'Null while the lead is not returned.' })
  returned: LeadReturnSchema | null;
}

@ApiSchema({ name: 'ReturnAnswer', description: 'The return was booked: the payout and the price of the lead are reversed.' })
export class ReturnAnswerSchema implements ReturnAnswerBody {
  @ApiProperty({ enum: [RETURNED.code] }) code: 'OK';
  @ApiProperty({ enum: [RETURNED.status] }) status: 'accepted';
  @ApiProperty({ example: RETURNED.reason, description: 'Short sentence-case explanation.' }) reason: string;
  @ApiProperty({ enum: [true] }) success: true;
  @ApiProperty({ enum: [false] }) retryable: false;
  @ApiProperty({ format: 'uuid', description: 'The lead returned.' }) svc_lead_id: string;
  @ApiProperty({ type: LeadReturnSchema }) returned: LeadReturnSchema;
}

@ApiSchema({
  name: 'DupeCheckAnswer',
  description: 'True means a submit would very likely be refused as `DUPLICATE`; false is no promise.',
})
export class DupeCheckAnswerSchema implements DupeCheckAnswer {
  @ApiProperty({ enum: [OK.code] }) code: 'OK';
  @ApiProperty({ enum: [OK.status] }) status: 'accepted';
  @ApiProperty({ enum: [OK.reason] }) reason: 'OK';
  @ApiProperty({ enum: [true] }) success: true;
  @ApiProperty() duplicate_likely: boolean;
  @ApiProperty({ enum: [false] }) retryable: false;
}

@ApiSchema({ name: 'OptOutAnswer', description: 'The same for every request: it says nothing about what the service knew of the person.' })
export class OptOutAnswerSchema implements OptOutAnswer {
  @ApiProperty({ enum: [OK.code] }) code: 'OK';
  @ApiProperty({ enum: [OK.status] }) status: 'accepted';
  @ApiProperty({ enum: [OK.reason] }) reason: 'OK';
  @ApiProperty({ enum: [true] }) success: true;
  @ApiProperty({ enum: [false] }) retryable: false;
  @ApiProperty({ format: 'uuid', description: 'This request, for later questions to the service operator.' }) opt_out_id: string;
}

@ApiSchema({ name: 'DupeCheckNotAvailable', description: 'The contract’s one plain body: the pre-check is not available on the account.' })
export class DupeCheckNotAvailableSchema {
  @ApiProperty({ enum: [DUPE_CHECK_NOT_AVAILABLE.error] }) error: string;
}

@ApiSchema({ name: 'FieldProblem' })
class FieldProblemSchema implements FieldProblem {
  @ApiProperty({ example: 'lead.personal.email', description: 'The field as the caller named it (nested or flat).' }) field: string;
  @ApiProperty({ enum: ['REQUIRED_FIELD_MISSING', 'INVALID_FIELD'] }) code: 'REQUIRED_FIELD_MISSING' | 'INVALID_FIELD';
  @ApiProperty({ example: 'lead.personal.email must be an email address' }) message: string;
}

@ApiSchema({
  name: 'ErrorEnvelope',
  description:
    'Every refusal carries `code`, `status` and `reason`; error answers may carry `retryable`, `retry_after_seconds` and `error`.',
})
export class ErrorEnvelopeSchema implements ApiEnvelope {
  [extra: string]: unknown;
  @ApiProperty({ enum: ERROR_CODES, example: 'INVALID_FIELD', description: 'Each status lists the codes it carries.' }) code: ApiCode;
  @ApiProperty({
    enum: OUTCOME_STATUSES,
    example: 'invalid',
    description: '`invalid` for refusals of the request, `failed` for 429, 500 and 503.',
  })
  status: OutcomeStatus;
  @ApiProperty({ example: 'lead.personal.email must be an email address', description: 'Short sentence-case explanation.' }) reason: string;
  @ApiProperty({ enum: [false] }) success: false;
  @ApiProperty({ description: 'True on 429 and 503: the same call may succeed later.' }) retryable: boolean;
  @ApiPropertyOptional({ type: 'integer', description: 'On 429 and 503, as the `Retry-After` header.' }) retry_after_seconds?: number;
  @ApiPropertyOptional({ enum: ERROR_DETAILS, description: 'A machine-readable detail of some refusals.' })
  error?: string;
  @ApiPropertyOptional({ example: 'lead.personal.email', description: 'On 400 and 409: the field at fault.' }) field?: string;
  @ApiPropertyOptional({ type: [FieldProblemSchema], description: 'On a 400 for fields: every problem found; the first decides `code`.' })
  errors?: FieldProblemSchema[];
  @ApiPropertyOptional({ description: 'On 500: quote it to the service operator.' }) request_id?: string;
}
