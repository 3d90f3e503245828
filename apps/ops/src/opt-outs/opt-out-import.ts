import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { optOutRecord, PersonKeySecret } from '@lr/domain';
import type { OptOuts } from '@lr/persistence';
import { CsvRecord, csvRecords } from '../csv/csv-records';
import { parseIsoInstant } from '../iso-instant';
import { COLUMN_NAMES, optOutKeysOfArguments } from './opt-out-keys';

/** The columns an import reads (a header line names them; others are refused so that a typo is not silently ignored). */
export const IMPORT_COLUMNS = ['email', 'phone', 'hashed_email', 'hashed_phone', 'received_at', 'reference'] as const;

export interface ImportLine {
  line: number;
  outcome: 'recorded' | 'error';
  /** Recorded: keys newly suppressed and notices created; error: why (never the line's values). */
  suppressed?: number;
  notices?: number;
  error?: string;
}

/**
 * `optout import <csv>` (docs/opt-outs.md): one opt-out per data line, each
 * stored on its own (a bad line is reported and the others go on), with the
 * line's `received_at` (default now) starting its notices' deadline.
 */
export async function importOptOuts(
  file: string,
  optOuts: OptOuts,
  now: Date,
  onProgress: (done: number, total: number) => void,
  relay: string,
  secret: PersonKeySecret,
): Promise<ImportLine[]> {
  let records: CsvRecord[];
  try {
    records = csvRecords(await readFile(file, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code) throw e;
    throw new ImportFileError((e as Error).message);
  }
  const [header, ...lines] = records;
  if (!header) throw new ImportFileError(`line 1: no header; columns: ${IMPORT_COLUMNS.join(', ')}`);
  const columns = checkedHeader(header.fields);
  const report: ImportLine[] = [];
  for (const [i, r] of lines.entries()) {
    if (r.fields.length !== columns.length)
      report.push({ line: r.line, outcome: 'error', error: `${r.fields.length} fields where the header has ${columns.length}` });
    else
      report.push(
        await importLine(Object.fromEntries(columns.map((c, k) => [c, r.fields[k].trim()])), r.line, file, optOuts, now, relay, secret),
      );
    onProgress(i + 1, lines.length);
  }
  return report;
}

function checkedHeader(header: string[]): string[] {
  const names = header.map((h) => h.trim());
  const unknown = names.filter((h) => !(IMPORT_COLUMNS as readonly string[]).includes(h));
  if (unknown.length > 0)
    throw new ImportFileError(
      `line 1: unknown column ${unknown.map((u) => JSON.stringify(u.slice(0, 40))).join(', ')}; columns: ${IMPORT_COLUMNS.join(', ')}`,
    );
  return names;
}

export class ImportFileError extends Error {}

async function importLine(
  r: Record<string, string>,
  line: number,
  file: string,
  optOuts: OptOuts,
  now: Date,
  relay: string,
  secret: PersonKeySecret,
): Promise<ImportLine> {
  const v = (k: string) => (r[k] === undefined || r[k] === '' ? undefined : r[k]);
  const keys = optOutKeysOfArguments(
    secret,
    { email: v('email'), phone: v('phone'), hashedEmail: v('hashed_email'), hashedPhone: v('hashed_phone') },
    COLUMN_NAMES,
  );
  if ('error' in keys) return { line, outcome: 'error', error: keys.error };
  let receivedAt = now;
  const at = v('received_at');
  if (at !== undefined) {
    const parsed = parseIsoInstant(at);
    if ('error' in parsed) return { line, outcome: 'error', error: `received_at: ${parsed.error}` };
    if (parsed.at.getTime() > now.getTime()) return { line, outcome: 'error', error: 'received_at is in the future' };
    receivedAt = parsed.at;
  }
  const reference = v('reference');
  if (reference !== undefined && reference.length > 200)
    return { line, outcome: 'error', error: 'reference is longer than 200 characters' };
  const recorded = await optOuts.record(
    optOutRecord({
      id: randomUUID(),
      receivedAt,
      source: 'operator',
      affiliateId: null,
      apiKeyId: null,
      reference: reference ?? null,
      keys: keys.keys,
      actor: `import:${file}:${line}`,
      relay,
    }),
  );
  return { line, outcome: 'recorded', suppressed: recorded.suppressed, notices: recorded.notices };
}
