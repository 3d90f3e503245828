import { ClassConstructor, plainToInstance } from 'class-transformer';
import { getMetadataStorage, ValidationError, validateSync } from 'class-validator';
import { ApiError } from './api-error';
import { REFUSAL } from '@lr/domain';

export interface FieldProblem {
  field: string;
  code: 'REQUIRED_FIELD_MISSING' | 'INVALID_FIELD';
  message: string;
}

/** Flattens class-validator's tree into problems naming each field by its JSON path. */
export function problemsOf(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own: FieldProblem[] = e.constraints
      ? [
          e.constraints.isDefined
            ? { field, code: 'REQUIRED_FIELD_MISSING', message: `Missing field ${field}` }
            : { field, code: 'INVALID_FIELD', message: `${field} ${firstMessage(e.constraints)}` },
        ]
      : [];
    return [...own, ...problemsOf(e.children ?? [], field)];
  });
}

function firstMessage(constraints: Record<string, string>): string {
  // class-validator messages start with the property name; keep the part after it.
  const msg = Object.values(constraints)[0] ?? 'is invalid';
  return msg.replace(/^\S+\s/, '');
}

/** Whether a DTO validates nested DTOs (@ValidateNested), which class-validator needs as instances of their own classes. */
const validatesNested = new WeakMap<object, boolean>();
function hasNestedDtos(cls: ClassConstructor<object>): boolean {
  let nested = validatesNested.get(cls);
  if (nested === undefined) {
    nested = getMetadataStorage()
      .getTargetValidationMetadatas(cls, '', true, false)
      .some((m) => m.type === 'nestedValidation');
    validatesNested.set(cls, nested);
  }
  return nested;
}

/**
 * The body as an instance of its DTO, for class-validator. A DTO that checks
 * only its own fields gets a shallow instance (the body's keys on the DTO's
 * prototype): class-transformer's plainToInstance would copy the whole body,
 * lead and answers included, which was the largest allocation of a search at
 * the gateway. A `constructor` key of the body is left out: class-validator
 * finds the DTO's rules through it.
 */
function instanceOf<T extends object>(cls: ClassConstructor<T>, body: object): T {
  if (hasNestedDtos(cls)) return plainToInstance(cls, body, { enableImplicitConversion: false });
  const dto = Object.create(cls.prototype as object) as T;
  for (const key of Object.keys(body))
    if (key !== 'constructor') (dto as Record<string, unknown>)[key] = (body as Record<string, unknown>)[key];
  return dto;
}

/** Validates the top-level shape of a request body with its DTO; returns the typed body and every problem. */
export function checkDto<T extends object>(cls: ClassConstructor<T>, body: unknown): { dto: T; problems: FieldProblem[] } {
  const dto = instanceOf(cls, body as object);
  const errors = validateSync(dto, { whitelist: false, forbidUnknownValues: false, stopAtFirstError: true });
  return { dto, problems: problemsOf(errors) };
}

/** Throws the first problem as the contract's 400 (all problems listed under `errors`). */
export function throwIfProblems(problems: FieldProblem[]): void {
  if (problems.length === 0) return;
  const first = problems[0];
  const errors = problems.map((p) => ({ field: p.field, code: p.code, message: p.message }));
  const d =
    first.code === 'REQUIRED_FIELD_MISSING'
      ? REFUSAL.fieldMissing(first.field, first.message)
      : REFUSAL.fieldInvalid(first.field, first.message);
  throw ApiError.of(d, { errors });
}

/**
 * The body must be a JSON object (not an array, string or null) whose text can
 * be stored: no key or value anywhere holds a NUL character (PostgreSQL's text
 * and jsonb refuse it) or an unpaired UTF-16 surrogate (a `\ud800` escape: not
 * encodable as UTF-8, and jsonb refuses it). Both used to pass the gateway and
 * fail in the worker storing the lead (503 on search, 500 on leads, the
 * message dead-lettered); now 400 INVALID_FIELD naming where.
 */
export function requireObjectBody(body: unknown): Record<string, unknown> {
  if (body === null || body === undefined) throw ApiError.malformed(REFUSAL.bodyEmpty);
  if (typeof body !== 'object' || Array.isArray(body)) throw ApiError.malformed(REFUSAL.bodyNotObject);
  const bad = storableBodies.has(body) ? undefined : unstorableTextAt(body);
  if (bad !== undefined) throw ApiError.of(REFUSAL.badText(bad));
  return body as Record<string, unknown>;
}

/**
 * Bodies whose JSON text could not hold unstorable text (markStorableIfClean):
 * in JSON text a NUL or a lone surrogate can only be written as a `\u` escape
 * (raw control characters are not JSON, and the body was checked to be UTF-8,
 * which cannot encode a surrogate), so a text without such an escape needs no
 * walk of its parsed tree.
 */
const storableBodies = new WeakSet<object>();
const MAYBE_UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f][0-9a-f]{2})/i;

/** Remembers a parsed body as storable when its JSON text has no escape that could stand for unstorable text. */
export function markStorableIfClean(text: string, parsed: unknown): void {
  if (parsed !== null && typeof parsed === 'object' && !MAYBE_UNSTORABLE_ESCAPE.test(text)) storableBodies.add(parsed);
}

// eslint-disable-next-line no-control-regex -- NUL is the very character PostgreSQL refuses in text; matching it is the point.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/**
 * The JSON path (`lead.personal.first_name`, `answers[2]`) of the first key or
 * string value holding unstorable text, or undefined. Iterative; the path itself
 * has the offending characters replaced by U+FFFD, so it can be echoed back.
 */
export function unstorableTextAt(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) return path;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    const entries = Array.isArray(v)
      ? v.map((item, i) => [`${path}[${i}]`, item] as const)
      : Object.entries(v).map(([k, item]) => [path ? `${path}.${k}` : k, item] as const);
    for (const [childPath, item] of entries.reverse()) {
      if (UNSTORABLE.test(childPath)) return childPath.replace(UNSTORABLE_ALL, '\ufffd');
      stack.push([item, childPath]);
    }
  }
  return undefined;
}
