import { isUuid, LeadReturns } from '@lr/persistence';
import { RETURN_NOTE_MAX, REFUSAL } from '@lr/domain';
import { returnLead } from '@lr/use-cases';
import { CliError } from '../cli-error';
import { csvRecords } from '../csv/csv-records';

/** The columns of a returns file: the first line names them (any order); `note` may be left out. */
export const RETURN_COLUMNS = ['school_id', 'svc_lead_id', 'reason', 'note'] as const;
const REQUIRED_COLUMNS = ['school_id', 'svc_lead_id', 'reason'] as const;
type Column = (typeof RETURN_COLUMNS)[number];

/** What became of one line of the file. */
export interface ImportedLine {
  line: number;
  svc_lead_id: string | null;
  school_id: string | null;
  /** `already_returned`: the lead was returned before (by the API or an earlier import): nothing more to do. */
  outcome: 'returned' | 'already_returned' | 'refused' | 'invalid';
  /** The answer's code when the return was decided (`OK`, `ALREADY_RETURNED`, `NOT_FOUND`, `RETURN_WINDOW_CLOSED`, `INVALID_FIELD`, …). */
  code: string | null;
  /** What was decided, or what is wrong with the line. */
  detail: string;
  returned_at: string | null;
}

export interface ImportReport {
  lines: ImportedLine[];
  totals: Record<ImportedLine['outcome'], number>;
}

/**
 * `ops returns import <csv>` (docs/returns.md): each line is a return by a
 * school, decided and booked exactly as the buyer API does (@lr/use-cases
 * returnLead; source `import`), one after the other. A line that cannot be
 * read is `invalid` and the others go on; a lead returned before is
 * `already_returned`, so importing the same file again changes nothing.
 * `onLine` hears each line as it is done (the report and the progress).
 */
export async function importReturns(
  returns: LeadReturns,
  text: string,
  onLine: (l: ImportedLine, done: number, total: number) => void,
): Promise<ImportReport> {
  let records;
  try {
    records = csvRecords(text);
  } catch (e) {
    throw new CliError(`the file is not CSV: ${(e as Error).message}`);
  }
  const [header, ...rows] = records;
  const columns = columnsOf(header?.fields ?? []);
  const lines: ImportedLine[] = [];
  for (const [i, row] of rows.entries()) {
    const l = await importLine(returns, row.line, row.fields, columns);
    lines.push(l);
    onLine(l, i + 1, rows.length);
  }
  const totals = { returned: 0, already_returned: 0, refused: 0, invalid: 0 };
  for (const l of lines) totals[l.outcome] += 1;
  return { lines, totals };
}

/** The header's columns by position; every required one must be there, and nothing else. */
function columnsOf(header: string[]): Map<Column, number> {
  const names = header.map((h) => h.trim().toLowerCase());
  const unknown = names.filter((n) => !(RETURN_COLUMNS as readonly string[]).includes(n));
  const missing = REQUIRED_COLUMNS.filter((c) => !names.includes(c));
  if (names.length === 0 || unknown.length > 0 || missing.length > 0) {
    throw new CliError(
      `line 1 must name the columns ${REQUIRED_COLUMNS.join(', ')}[, note]` +
        `${missing.length > 0 ? `; missing: ${missing.join(', ')}` : ''}${unknown.length > 0 ? `; unknown: ${unknown.join(', ')}` : ''}`,
    );
  }
  return new Map(names.map((n, i) => [n as Column, i]));
}

async function importLine(returns: LeadReturns, line: number, fields: string[], columns: Map<Column, number>): Promise<ImportedLine> {
  const value = (c: Column) => {
    const i = columns.get(c);
    return i === undefined ? '' : (fields[i] ?? '').trim();
  };
  const schoolId = value('school_id');
  const leadId = value('svc_lead_id');
  const reason = value('reason');
  const note = value('note');
  const base = { line, svc_lead_id: leadId || null, school_id: schoolId || null, code: null, returned_at: null };
  const invalid = (detail: string): ImportedLine => ({ ...base, outcome: 'invalid', detail });
  if (fields.length !== columns.size) return invalid(`expected ${columns.size} fields, got ${fields.length}`);
  if (!isUuid(schoolId)) return invalid(`school_id ${JSON.stringify(schoolId)} is not a UUID`);
  if (!isUuid(leadId)) return invalid(`svc_lead_id ${JSON.stringify(leadId)} is not a UUID`);
  if (reason === '') return invalid('reason is empty');
  if (note.length > RETURN_NOTE_MAX) return invalid(`note is over ${RETURN_NOTE_MAX} characters`);
  const outcome = await returnLead(returns, {
    leadId: leadId.toLowerCase(),
    schoolId: schoolId.toLowerCase(),
    reason,
    note: note === '' ? null : note,
    source: 'import',
    apiKeyId: null,
  });
  if (outcome.kind === 'returned') {
    return { ...base, outcome: 'returned', code: 'OK', detail: `returned (${outcome.reason})`, returned_at: outcome.at.toISOString() };
  }
  const d = outcome.decision;
  return { ...base, outcome: d.code === REFUSAL.alreadyReturned.code ? 'already_returned' : 'refused', code: d.code, detail: d.reason };
}

/** A line of the report, for a terminal. */
export function importedLineText(l: ImportedLine): string {
  const lead = l.svc_lead_id ?? '-';
  switch (l.outcome) {
    case 'returned':
      return `line ${l.line}: returned ${lead} ${l.detail.replace(/^returned /, '')} at ${l.returned_at}`;
    case 'already_returned':
      return `line ${l.line}: already returned ${lead} (nothing done)`;
    case 'refused':
      return `line ${l.line}: refused ${lead}: ${l.code} ${l.detail}`;
    case 'invalid':
      return `line ${l.line}: invalid: ${l.detail}`;
  }
}
