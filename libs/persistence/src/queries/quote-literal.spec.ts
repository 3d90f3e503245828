import fc from 'fast-check';
import { escapeLiteral } from 'pg';
import { quoteLiteral } from './sql';

describe('quoteLiteral', () => {
  it("quotes exactly as node-postgres' escapeLiteral, for any text", () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.array(fc.constantFrom("'", '\\', 'E', 'a', ' ', '"', '\n'), { maxLength: 30 }).map((cs) => cs.join('')),
    );
    fc.assert(
      fc.property(text, (t) => {
        expect(quoteLiteral(t)).toBe(escapeLiteral(t));
      }),
      { numRuns: 2000 },
    );
    for (const t of ['', "'", "''", '\\', "\\'", "E'x'", "it's a \\path\\"]) expect(quoteLiteral(t)).toBe(escapeLiteral(t));
  });
});
