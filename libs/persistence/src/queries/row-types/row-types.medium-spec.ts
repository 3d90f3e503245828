import { readFileSync, writeFileSync } from 'node:fs';
import { MEDIUM_DATABASE_URL } from '../../../../../test/support/medium-world';
import { generateRowTypes, ROW_TYPES_FILE } from './generate';

/**
 * row-types.generated.ts is what PostgreSQL describes now: every declared
 * statement, described against the medium database migrated from scratch.
 * A migration or a statement changed without regenerating fails here.
 * `npm run db:row-types` runs this file with ROW_TYPES_WRITE=1: it writes the
 * file instead of comparing.
 */
describe('row-types.generated.ts', () => {
  it('is the row types PostgreSQL describes for every declared statement', async () => {
    const generated = await generateRowTypes(MEDIUM_DATABASE_URL);
    if (process.env.ROW_TYPES_WRITE === '1') writeFileSync(ROW_TYPES_FILE, generated);
    const committed = readFileSync(ROW_TYPES_FILE, 'utf8');
    if (generated === committed) return;
    const was = committed.split('\n');
    const is = generated.split('\n');
    const line = is.findIndex((l, n) => l !== was[n]);
    throw new Error(
      `libs/persistence/src/queries/row-types.generated.ts is out of date (first difference at line ${line + 1}: ` +
        `${JSON.stringify(was[line] ?? '')} should be ${JSON.stringify(is[line] ?? '')}). ` +
        'Regenerate it with `npm run db:row-types` and commit it.',
    );
  });
});
