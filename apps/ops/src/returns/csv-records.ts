/** One record of a CSV file, with the file line it starts on (1-based). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/**
 * The records of a CSV text (RFC 4180: fields separated by commas, a field in
 * double quotes may hold commas, line breaks and doubled quotes; CRLF or LF).
 * Blank lines are skipped; a BOM at the start is dropped. An unterminated
 * quote is an error naming the line it opened on.
 */
export function csvRecords(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const s = text.startsWith('\ufeff') ? text.slice(1) : text;
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let startLine = 1;
  let quoted = false;
  let quoteLine = 0;
  const endRecord = () => {
    fields.push(field);
    if (!(fields.length === 1 && fields[0] === '')) records.push({ line: startLine, fields });
    fields = [];
    field = '';
  };
  for (let i = 0; i < s.length; i += 1) {
    const c = s[i];
    if (quoted) {
      if (c === '"' && s[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') {
        quoted = false;
      } else {
        if (c === '\n') line += 1;
        field += c;
      }
    } else if (c === '"' && field === '') {
      quoted = true;
      quoteLine = line;
    } else if (c === ',') {
      fields.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && s[i + 1] === '\n') i += 1;
      endRecord();
      line += 1;
      startLine = line;
    } else {
      field += c;
    }
  }
  if (quoted) throw new Error(`line ${quoteLine}: a quoted field is not closed`);
  endRecord();
  return records;
}
