import { parse } from 'csv-parse/sync';

/** One record of a CSV file, with the file line it starts on (1-based). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/**
 * The records of a CSV text, read by csv-parse (RFC 4180: fields separated by
 * commas, a field in double quotes may hold commas, line breaks and doubled
 * quotes; CRLF or LF). Blank lines are skipped; a BOM at the start is
 * dropped. An unterminated quote is an error naming the line it opened on.
 * Every operator import (`returns import`, `optout import`) reads its file here.
 */
export function csvRecords(text: string): CsvRecord[] {
  let rows: Array<{ record: string[]; info: { lines: number } }>;
  try {
    // With `info: true` each record comes as `{ record, info }`: csv-parse's types describe plain records only.
    rows = parse(text, {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      info: true,
      record_delimiter: ['\r\n', '\n', '\r'],
    }) as unknown as typeof rows;
  } catch (e) {
    const err = e as { code?: string; lines?: number; message?: string };
    if (err.code === 'CSV_QUOTE_NOT_CLOSED') throw new Error(`line ${quoteLine(text)}: a quoted field is not closed`, { cause: e });
    throw new Error(`line ${err.lines ?? '?'}: not CSV (${err.code ?? 'unreadable'})`, { cause: e });
  }
  // csv-parse counts the line a record ends on; a quoted field's line breaks are the only lines before it.
  return rows.map(({ record, info }) => ({
    line: info.lines - record.reduce((n, f) => n + (f.match(/\n/g)?.length ?? 0), 0),
    fields: record,
  }));
}

/** The line of the quote left open: the first line after which the quotes seen are odd in number. */
function quoteLine(text: string): number {
  let open = false;
  let line = 1;
  let openedOn = 1;
  for (const c of text) {
    if (c === '"') {
      if (!open) openedOn = line;
      open = !open;
    } else if (c === '\n') line += 1;
  }
  return openedOn;
}
