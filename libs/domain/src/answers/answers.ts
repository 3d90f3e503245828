import type { FormField } from '../vocabulary/offers';
import { Decision, SUBMIT } from '../decisions/decision-catalog';

export interface ShownOffer {
  programs: ReadonlyArray<{ value: string; label: string }>;
  formFields: readonly FormField[];
}

export type AnswersCheck = { ok: true; programId: string | null; answers: Record<string, string> } | { ok: false; refusal: Decision };

const MAX_ANSWER = 500;

/**
 * The program and the answers of a submit against what the result showed
 * (affiliate-api.md, "Question rules"):
 * - `program_id` must be one of the result's programs. Left out, it is implied
 *   when the result has exactly one program; with several it is required
 *   (a school needs to know what the consumer asked about).
 * - every question with `required` true, and every question whose
 *   `required_when.program_ids` holds the chosen program, needs an answer;
 * - a `select` answer is one of its `options[].value`, a `number` is a number;
 * - answers are strings (a number or boolean is taken as its text), at most 500
 *   characters. Keys that are not questions are ignored.
 * The first failing rule is reported, in the result's question order.
 */
export function checkAnswers(shown: ShownOffer, programId: string | null, raw: Record<string, unknown>): AnswersCheck {
  let program: string | null = programId;
  if (program === null) {
    if (shown.programs.length === 1) program = shown.programs[0].value;
    else if (shown.programs.length > 1) return { ok: false, refusal: SUBMIT.programMissing };
  } else if (!shown.programs.some((p) => p.value === program)) {
    return { ok: false, refusal: SUBMIT.programUnknown };
  }

  const answers: Record<string, string> = {};
  for (const q of shown.formFields) {
    // Own keys only: a question named like an Object.prototype member (`constructor`) is not answered by the prototype.
    const given = Object.hasOwn(raw, q.name) ? raw[q.name] : undefined;
    const value = answerText(given);
    const needed = q.required || (program !== null && (q.required_when?.program_ids ?? []).includes(program));
    if (value === undefined || value === '') {
      if (given !== undefined && value === undefined) return invalid(q);
      if (needed) return { ok: false, refusal: SUBMIT.answerMissing(labelOf(q), q.name) };
      continue;
    }
    if (value.length > MAX_ANSWER) return invalid(q);
    if (q.options && !q.options.some((o) => o.value === value)) return invalid(q);
    if (q.type === 'number' && !/^-?\d+(\.\d+)?$/.test(value)) return invalid(q);
    answers[q.name] = value;
  }
  return { ok: true, programId: program, answers };
}

function answerText(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return String(v);
  return v === undefined || v === null ? '' : undefined;
}

/** The reason names the question: its label when short, else its name (`Missing HS grad year`). */
function labelOf(q: FormField): string {
  const label = q.label?.trim();
  return label && label.length <= 60 ? label : q.name;
}

function invalid(q: FormField): AnswersCheck {
  return { ok: false, refusal: SUBMIT.answerInvalid(labelOf(q), q.name) };
}
