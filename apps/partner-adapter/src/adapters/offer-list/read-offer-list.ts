import type { FormField, PartnerOfferResult } from '@lr/contracts';
import { RESERVED_ANSWER_NAMES, valueAt } from '@lr/domain';
import type { ChoiceListMapping, OfferListMapping, QuestionMapping, QuestionType } from '@lr/domain';
import { PartnerProtocolError } from '../partner-errors';
import { checkDepth } from './answer-depth';
import {
  DisplayField,
  displayText,
  InvalidPartnerValue,
  httpUrlOrNull,
  isObject,
  list,
  MarkupInPartnerText,
  nullableDisplayText,
  nullableText,
  object,
  positiveIntegerOrNull,
  text,
} from './answer-checks';

/** Bounds of what one answer may hold (docs/partner-adapter.md, "Untrusted answers"). */
export const MAX_OFFER_ENTRIES = 1000;
export const MAX_PROGRAMS = 50;
export const MAX_FORM_FIELDS = 50;
export const MAX_FIELD_OPTIONS = 500;
/** The longest a result is kept open, whatever the partner says (the offer's result_ttl_seconds is at most a day). */
const MAX_EXPIRY_SECONDS = 366 * 86_400;
const UNIT_SECONDS = { seconds: 1, minutes: 60, hours: 3600 } as const;
const FIELD_TYPES: readonly string[] = ['select', 'text', 'number'] satisfies readonly QuestionType[];
const RESERVED: ReadonlySet<string> = new Set(RESERVED_ANSWER_NAMES);
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Why a result entry was left out of an answer (`markup`: a display string held markup). */
export type DropReason = 'malformed' | 'unknown_offer' | 'duplicate' | 'markup';

export interface DroppedResult {
  index: number;
  reason: DropReason;
  /** The entry's external id when it had a usable one. */
  externalId: string | null;
  /** For `malformed` and `markup`: the first problem found, with its JSON path in the partner's answer. */
  problem?: string;
  /** For `markup`: which display string held it. */
  field?: DisplayField;
}

export interface OfferListAnswer {
  results: PartnerOfferResult[];
  dropped: DroppedResult[];
}

/** One of our offers asked about, by our id and the partner's. */
export interface AskedOffer {
  offerId: string;
  externalId: string;
}

/**
 * Reads a partner's search answer with a mapping (catalog `search.results`;
 * the sandbox protocol is one fixed mapping). Only the mapped paths are read,
 * and every value is checked and bounded, so nothing else the partner sends
 * (a price, a payout, another offer) can reach a result.
 *
 * The answer as a whole must hold a list at `list` (at most
 * MAX_OFFER_ENTRIES entries), be nested at most MAX_ANSWER_DEPTH levels, and
 * echo our search id where the mapping says it does; else PartnerProtocolError
 * naming the path. Entries are then judged one by one: a malformed one, one
 * about an offer we did not ask about, or a repeat of an external id already
 * answered is dropped and reported in `dropped` (with the path of its first
 * problem); the rest map back to our offer ids. An answer none of whose
 * entries fits the mapping is a PartnerProtocolError naming the first
 * problem: it is the mapping or the partner that is broken, not one offer.
 */
export function readOfferList(
  body: unknown,
  mapping: OfferListMapping,
  searchId: string,
  asked: AskedOffer[],
  now = Date.now(),
): OfferListAnswer {
  checkDepth(body);
  if (mapping.search_id !== undefined) {
    const echoed = valueAt(body, mapping.search_id);
    if (echoed !== undefined && echoed !== searchId)
      throw new PartnerProtocolError(`the answer's ${mapping.search_id} names another search`);
  }
  const entries = mapping.list === '$' ? body : valueAt(body, mapping.list);
  if (!Array.isArray(entries)) throw new PartnerProtocolError(`the answer has no list of offers at ${mapping.list}`);
  if (entries.length > MAX_OFFER_ENTRIES)
    throw new PartnerProtocolError(`the answer's ${mapping.list} has more than ${MAX_OFFER_ENTRIES} entries`);
  const offerIdOf = new Map<string, string>();
  for (const o of asked) if (!offerIdOf.has(o.externalId)) offerIdOf.set(o.externalId, o.offerId);

  const reader = new EntryReader(mapping, now);
  const results: PartnerOfferResult[] = [];
  const dropped: DroppedResult[] = [];
  const seen = new Set<string>();
  entries.forEach((entry: unknown, index: number) => {
    const raw = isObject(entry) ? valueAt(entry, mapping.external_id) : undefined;
    const externalId = typeof raw === 'string' ? raw : null;
    if (externalId !== null) {
      if (!offerIdOf.has(externalId)) return void dropped.push({ index, reason: 'unknown_offer', externalId });
      // The first entry for an offer decides, even a malformed one: a partner that answers twice is not trusted to mean the second.
      if (seen.has(externalId)) return void dropped.push({ index, reason: 'duplicate', externalId });
      seen.add(externalId);
    }
    try {
      results.push(reader.entry(entry, `${mapping.list}[${index}]`, offerIdOf));
    } catch (e) {
      if (e instanceof MarkupInPartnerText)
        return void dropped.push({ index, reason: 'markup', externalId, problem: e.message, field: e.field });
      if (!(e instanceof InvalidPartnerValue)) throw e;
      dropped.push({ index, reason: 'malformed', externalId, problem: e.message });
    }
  });
  const malformed = dropped.find((d) => d.reason === 'malformed');
  if (results.length === 0 && malformed) throw new PartnerProtocolError(`no offer of the answer fits the mapping: ${malformed.problem}`);
  return { results, dropped };
}

/** A choice read from a list: its value and label, and where it was (a program's questions are read from it). */
interface Choice {
  value: string;
  label: string;
  item: Record<string, unknown>;
  path: string;
}

/** A question as read from one place, before a per-program question is merged. */
interface Question {
  field: FormField;
  required: boolean;
  item: Record<string, unknown>;
  path: string;
}

/** Reads one entry of the list; every problem is an InvalidPartnerValue naming its path in the answer. */
class EntryReader {
  constructor(
    private readonly m: OfferListMapping,
    private readonly now: number,
  ) {}

  entry(entry: unknown, path: string, offerIdOf: Map<string, string>): PartnerOfferResult {
    const m = this.m;
    const o = object(entry, path);
    const externalId = text(valueAt(o, m.external_id), `${path}.${m.external_id}`, 200);
    const programs = choices(o, path, m.programs, 1, MAX_PROGRAMS, 'program');
    return {
      offerId: offerIdOf.get(externalId) as string, // unknown external ids were dropped before
      externalId,
      partnerResultId: text(valueAt(o, m.partner_result_id), `${path}.${m.partner_result_id}`, 200),
      programs: programs.map(({ value, label }) => ({ value, label })),
      formFields: m.questions ? this.questions(o, path, m.questions, programs) : [],
      tcpaText:
        m.tcpa_text === undefined ? null : nullableDisplayText(valueAt(o, m.tcpa_text), `${path}.${m.tcpa_text}`, 10_000, 'tcpa_text'),
      school: this.school(o, path),
      expiresInSeconds: this.expiresIn(o, path),
    };
  }

  private questions(o: Record<string, unknown>, path: string, q: QuestionMapping, programs: Choice[]): FormField[] {
    if (q.under === 'program') return this.programQuestions(q, programs);
    const offered = new Set(programs.map((p) => p.value));
    return this.questionList(o, path, q).map(({ field, required, item, path: at }) => {
      const out: FormField = { name: field.name, label: field.label, type: field.type, required };
      const when = q.required_when === undefined ? undefined : valueAt(item, q.required_when);
      if (when !== undefined && when !== null) out.required_when = { program_ids: requiredWhen(when, `${at}.${q.required_when}`, offered) };
      if (field.options) out.options = field.options;
      return out;
    });
  }

  /**
   * Questions listed under each program: one question per name, asked as the
   * first program lists it (every program must ask it the same way). It is
   * required when every program of the result requires it, and otherwise
   * required_when the programs that do.
   */
  private programQuestions(q: QuestionMapping, programs: Choice[]): FormField[] {
    const merged = new Map<string, { first: Question; requiredBy: string[] }>();
    for (const program of programs) {
      for (const read of this.questionList(program.item, program.path, q)) {
        const known = merged.get(read.field.name);
        if (known && !sameQuestion(known.first.field, read.field)) {
          throw new InvalidPartnerValue(
            read.path,
            `asks ${JSON.stringify(read.field.name)} with another type or other options than ${known.first.path}`,
          );
        }
        if (!known && merged.size === MAX_FORM_FIELDS)
          throw new InvalidPartnerValue(read.path, `is a question beyond the ${MAX_FORM_FIELDS} a result may ask`);
        const entry = known ?? { first: read, requiredBy: [] };
        if (read.required) entry.requiredBy.push(program.value);
        merged.set(read.field.name, entry);
      }
    }
    return [...merged.values()].map(({ first, requiredBy }) => {
      const always = requiredBy.length === programs.length;
      const out: FormField = { name: first.field.name, label: first.field.label, type: first.field.type, required: always };
      if (!always && requiredBy.length > 0) out.required_when = { program_ids: requiredBy };
      if (first.field.options) out.options = first.field.options;
      return out;
    });
  }

  /** The questions of one list (an offer's or a program's), names distinct within it. */
  private questionList(holder: Record<string, unknown>, holderPath: string, q: QuestionMapping): Question[] {
    const at = `${holderPath}.${q.list}`;
    const raw = valueAt(holder, q.list);
    const items = raw === undefined || raw === null ? [] : list(raw, at, 0, MAX_FORM_FIELDS);
    const names = new Set<string>();
    return items.map((item, i) => {
      const read = question(item, `${at}[${i}]`, q);
      if (names.has(read.field.name)) throw new InvalidPartnerValue(`${read.path}.${q.name}`, 'repeats an earlier field name');
      names.add(read.field.name);
      return read;
    });
  }

  /** `school.path` names an object holding the fields (absent or null: no school); without it the fields are the entry's (no name: no school). */
  private school(o: Record<string, unknown>, path: string): PartnerOfferResult['school'] {
    const s = this.m.school;
    if (s === undefined) return null;
    let holder = o;
    let at = path;
    if (s.path !== undefined) {
      const v = valueAt(o, s.path);
      if (v === undefined || v === null) return null;
      at = `${path}.${s.path}`;
      holder = object(v, at);
    } else if (valueAt(o, s.name) === undefined || valueAt(o, s.name) === null) return null;
    return {
      name: displayText(valueAt(holder, s.name), `${at}.${s.name}`, 200, 'school_name'),
      logoUrl: s.logo_url === undefined ? null : httpUrlOrNull(valueAt(holder, s.logo_url), `${at}.${s.logo_url}`),
    };
  }

  /** Seconds the partner keeps the result open: `expires_in` (a positive integer in its unit) or `expires_at` (a future ISO time). */
  private expiresIn(o: Record<string, unknown>, path: string): number | null {
    const { expires_in: within, expires_at: at } = this.m;
    if (within !== undefined) {
      const n = positiveIntegerOrNull(valueAt(o, within.path), `${path}.${within.path}`);
      return n === null ? null : Math.min(n * UNIT_SECONDS[within.unit], MAX_EXPIRY_SECONDS);
    }
    if (at === undefined) return null;
    const where = `${path}.${at}`;
    const time = nullableText(valueAt(o, at), where, 64);
    if (time === null) return null;
    const ms = ISO_TIME.test(time) ? Date.parse(time) : NaN;
    if (Number.isNaN(ms)) throw new InvalidPartnerValue(where, 'must be an ISO 8601 time or null');
    const seconds = Math.floor((ms - this.now) / 1000);
    if (seconds <= 0) throw new InvalidPartnerValue(where, 'is not in the future');
    return Math.min(seconds, MAX_EXPIRY_SECONDS);
  }
}

/** A list of `{ value, label }` at `m.list` of `holder`: values distinct (a program or an answer is picked by its value). */
function choices(
  holder: Record<string, unknown>,
  holderPath: string,
  m: ChoiceListMapping,
  min: number,
  max: number,
  kind: 'program' | 'option',
): Choice[] {
  const at = `${holderPath}.${m.list}`;
  const seen = new Set<string>();
  return list(valueAt(holder, m.list), at, min, max).map((raw, i) => {
    const path = `${at}[${i}]`;
    const item = object(raw, path);
    const value = displayText(valueAt(item, m.value), `${path}.${m.value}`, 200, `${kind}_value`);
    if (seen.has(value)) throw new InvalidPartnerValue(`${path}.${m.value}`, 'repeats an earlier value');
    seen.add(value);
    const label = m.label === undefined ? value : displayText(valueAt(item, m.label), `${path}.${m.label}`, 500, `${kind}_label`);
    return { value, label, item, path };
  });
}

/** One question: the contract's FormField (without required_when), and whether the partner marks it required there. */
function question(raw: unknown, path: string, q: QuestionMapping): Question {
  const o = object(raw, path);
  const nameAt = `${path}.${q.name}`;
  const name = displayText(valueAt(o, q.name), nameAt, 100, 'question_name');
  // An answer travels as a top-level key of the submit named as its question.
  if (RESERVED.has(name)) throw new InvalidPartnerValue(nameAt, 'is a field of the submit request and cannot name a question');
  const label = q.label === undefined ? null : nullableDisplayText(valueAt(o, q.label), `${path}.${q.label}`, 500, 'question_label');
  const rawOptions = q.options === undefined ? undefined : valueAt(o, q.options.list);
  const hasOptions = rawOptions !== undefined && rawOptions !== null;
  const type = questionType(o, path, q, hasOptions);
  let required = false;
  if (q.required !== undefined) {
    const v = valueAt(o, q.required);
    if (typeof v !== 'boolean') throw new InvalidPartnerValue(`${path}.${q.required}`, 'must be a boolean');
    required = v;
  }
  const field: FormField = { name, label, type, required };
  if (type === 'select' || hasOptions) {
    if (q.options === undefined) throw new InvalidPartnerValue(path, 'is a select question, and the mapping reads no options');
    field.options = choices(o, path, q.options, 1, MAX_FIELD_OPTIONS, 'option').map(({ value, label: l }) => ({ value, label: l }));
  }
  return { field, required, item: o, path };
}

function questionType(o: Record<string, unknown>, path: string, q: QuestionMapping, hasOptions: boolean): QuestionType {
  if (q.type === undefined) return hasOptions ? 'select' : 'text';
  const raw = valueAt(o, q.type);
  const at = `${path}.${q.type}`;
  if (q.types !== undefined) {
    if (typeof raw === 'string' && Object.hasOwn(q.types, raw)) return q.types[raw];
    throw new InvalidPartnerValue(at, `must be one of the mapping's types (${Object.keys(q.types).slice(0, 10).join(', ')})`);
  }
  if (typeof raw === 'string' && FIELD_TYPES.includes(raw)) return raw as QuestionType;
  throw new InvalidPartnerValue(at, 'must be select, text or number');
}

/** The programs that make a question required: named, and offered by this result. */
function requiredWhen(v: unknown, path: string, offered: ReadonlySet<string>): string[] {
  return list(v, path, 1, MAX_PROGRAMS).map((id, i) => {
    const value = text(id, `${path}[${i}]`, 200);
    if (!offered.has(value)) throw new InvalidPartnerValue(`${path}[${i}]`, 'names a program the result does not offer');
    return value;
  });
}

/** Two programs ask a question the same way: the same type and the same options (the first one's label is shown). */
function sameQuestion(a: FormField, b: FormField): boolean {
  const values = (f: FormField) => (f.options ?? []).map((o) => o.value).join('\u0000');
  return a.type === b.type && values(a) === values(b);
}
