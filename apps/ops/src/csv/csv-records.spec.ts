import { csvRecords } from './csv-records';

describe('csvRecords', () => {
  it('reads fields, quoted fields with commas, quotes and line breaks, and the line each record starts on', () => {
    const text =
      '\ufeffschool_id,svc_lead_id,reason,note\r\na,b,wrong_number,\n\nc,d,not_the_person,"said ""no"", twice\nthen hung up"\ne,f,x';
    expect(csvRecords(text)).toEqual([
      { line: 1, fields: ['school_id', 'svc_lead_id', 'reason', 'note'] },
      { line: 2, fields: ['a', 'b', 'wrong_number', ''] },
      { line: 4, fields: ['c', 'd', 'not_the_person', 'said "no", twice\nthen hung up'] },
      { line: 6, fields: ['e', 'f', 'x'] },
    ]);
  });

  it('ignores a final line break and blank lines; names the line of an unclosed quote', () => {
    expect(csvRecords('a,b\n\n')).toEqual([{ line: 1, fields: ['a', 'b'] }]);
    expect(() => csvRecords('a,b\nc,"open\n')).toThrow('line 2: a quoted field is not closed');
  });
});
