import type { FormField, PartnerOfferResult } from '@lr/contracts';
import { PartnerProtocolError } from '../partner-errors';
import {
  InvalidPartnerValue,
  choices,
  httpUrlOrNull,
  isObject,
  list,
  nullableText,
  object,
  positiveIntegerOrNull,
  text,
} from './answer-checks';

export const MAX_PROGRAMS = 50;
export const MAX_FORM_FIELDS = 50;
export const MAX_FIELD_OPTIONS = 500;
const FIELD_TYPES = new Set(['select', 'text', 'number']);

/** Why a result entry was left out of an answer. */
export type DropReason = 'malformed' | 'unknown_offer' | 'duplicate';

export interface DroppedResult {
  index: number;
  reason: DropReason;
  /** The entry's external_id when it had a usable one. */
  externalId: string | null;
  /** For `malformed`: the first problem found, with its JSON path. */
  problem?: string;
}

export interface SearchAnswer {
  results: PartnerOfferResult[];
  dropped: DroppedResult[];
}

/**
 * Reads a partner's search answer (docs/sandbox.md, "Partner protocol"). The
 * answer as a whole must be an object whose `results` is an array (and whose
 * `search_id`, when given, is ours), else PartnerProtocolError. Entries are
 * judged one by one: a malformed one, one about an offer we did not ask about,
 * or a repeat of an external_id already answered is dropped and reported in
 * `dropped`; the rest map back to our offer ids.
 */
export function parseSearchAnswer(body: unknown, searchId: string, asked: Array<{ offerId: string; externalId: string }>): SearchAnswer {
  if (!isObject(body)) throw new PartnerProtocolError('the search answer is not a JSON object');
  if (body.search_id !== undefined && body.search_id !== searchId) {
    throw new PartnerProtocolError('the search answer is about another search_id');
  }
  if (!Array.isArray(body.results)) throw new PartnerProtocolError('the search answer has no results array');
  const offerIdOf = new Map<string, string>();
  for (const o of asked) if (!offerIdOf.has(o.externalId)) offerIdOf.set(o.externalId, o.offerId);

  const results: PartnerOfferResult[] = [];
  const dropped: DroppedResult[] = [];
  const seen = new Set<string>();
  body.results.forEach((entry: unknown, index: number) => {
    const externalId = isObject(entry) && typeof entry.external_id === 'string' ? entry.external_id : null;
    if (externalId !== null) {
      if (!offerIdOf.has(externalId)) return void dropped.push({ index, reason: 'unknown_offer', externalId });
      // The first entry for an offer decides, even a malformed one: a partner that answers twice is not trusted to mean the second.
      if (seen.has(externalId)) return void dropped.push({ index, reason: 'duplicate', externalId });
      seen.add(externalId);
    }
    try {
      results.push(resultEntry(entry, `results[${index}]`, offerIdOf));
    } catch (e) {
      if (!(e instanceof InvalidPartnerValue)) throw e;
      dropped.push({ index, reason: 'malformed', externalId, problem: e.message });
    }
  });
  return { results, dropped };
}

function resultEntry(entry: unknown, path: string, offerIdOf: Map<string, string>): PartnerOfferResult {
  const o = object(entry, path);
  const externalId = text(o.external_id, `${path}.external_id`, 200);
  const offerId = offerIdOf.get(externalId) as string; // the caller only passes asked ones
  const programs = choices(o.programs, `${path}.programs`, 1, MAX_PROGRAMS);
  const programValues = new Set(programs.map((p) => p.value));
  return {
    offerId,
    externalId,
    partnerResultId: text(o.partner_result_id, `${path}.partner_result_id`, 200),
    programs,
    formFields: formFields(o.form_fields, `${path}.form_fields`, programValues),
    tcpaText: nullableText(o.tcpa_text, `${path}.tcpa_text`, 10_000),
    school: school(o.school, `${path}.school`),
    expiresInSeconds: positiveIntegerOrNull(o.expires_in_seconds, `${path}.expires_in_seconds`),
  };
}

function formFields(v: unknown, path: string, programValues: Set<string>): FormField[] {
  const names = new Set<string>();
  return list(v, path, 0, MAX_FORM_FIELDS).map((item, i) => {
    const field = formField(item, `${path}[${i}]`, programValues);
    if (names.has(field.name)) throw new InvalidPartnerValue(`${path}[${i}].name`, 'repeats an earlier field name');
    names.add(field.name);
    return field;
  });
}

/** A partner question as the contract's FormField: `required_when` and `options` keys only when given. */
function formField(item: unknown, path: string, programValues: Set<string>): FormField {
  const o = object(item, path);
  const name = text(o.name, `${path}.name`, 100);
  const label = nullableText(o.label, `${path}.label`, 500);
  if (typeof o.type !== 'string' || !FIELD_TYPES.has(o.type)) throw new InvalidPartnerValue(`${path}.type`, 'must be select, text or number');
  if (typeof o.required !== 'boolean') throw new InvalidPartnerValue(`${path}.required`, 'must be a boolean');
  const field: FormField = { name, label, type: o.type, required: o.required };
  if (o.required_when !== undefined && o.required_when !== null) {
    field.required_when = { program_ids: requiredWhen(o.required_when, `${path}.required_when`, programValues) };
  }
  if (o.type === 'select' || (o.options !== undefined && o.options !== null)) {
    field.options = choices(o.options, `${path}.options`, 1, MAX_FIELD_OPTIONS);
  }
  return field;
}

/** The programs that make a question required: named, and offered by this result. */
function requiredWhen(v: unknown, path: string, programValues: Set<string>): string[] {
  const ids = list(object(v, path).program_ids, `${path}.program_ids`, 1, MAX_PROGRAMS);
  return ids.map((id, i) => {
    const value = text(id, `${path}.program_ids[${i}]`, 200);
    if (!programValues.has(value)) throw new InvalidPartnerValue(`${path}.program_ids[${i}]`, 'names a program the result does not offer');
    return value;
  });
}

function school(v: unknown, path: string): PartnerOfferResult['school'] {
  if (v === null || v === undefined) return null;
  const o = object(v, path);
  return { name: text(o.name, `${path}.name`, 200), logoUrl: httpUrlOrNull(o.logo_url, `${path}.logo_url`) };
}
