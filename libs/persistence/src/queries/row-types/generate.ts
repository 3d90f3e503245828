import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { personKeySecret } from '@lr/domain';
import { join } from 'node:path';
import { Client } from 'pg';
import { migrateDatabase } from '../../migrate';
import { keyStoreUrl } from '@lr/config';
import { declaredStatements, runsOnKeyStore } from '../sql';
import { DescribedColumn, describeStatement } from './describe';

/**
 * The row type of every declared statement, from PostgreSQL's own
 * description of it (docs/decisions.md, "Row types from PostgreSQL's
 * description of each statement"): a scratch database is migrated, every
 * repository module is loaded so that every statement is declared, and each
 * statement is described (Parse, Describe, Sync: never executed). The
 * result is row-types.generated.ts, committed; a medium test regenerates it
 * and fails when it differs.
 */

export const ROW_TYPES_FILE = join(__dirname, '..', 'row-types.generated.ts');

/** What node-postgres returns for a type under its default parsers (pg-types), by type OID; any other type comes as text. */
const TS_OF_OID: Record<number, string> = {
  16: 'boolean',
  17: 'Buffer',
  20: 'string', // int8: parsed as text, its range exceeds a number's
  21: 'number',
  23: 'number',
  26: 'number',
  700: 'number',
  701: 'number',
  1700: 'string', // numeric: exact, as text
  1082: 'Date',
  1114: 'Date',
  1184: 'Date',
  114: 'unknown', // json and jsonb: parsed, of whatever shape the statement built
  3802: 'unknown',
  199: 'unknown[]',
  3807: 'unknown[]',
  1000: 'boolean[]',
  1001: 'Buffer[]',
  1005: 'number[]',
  1007: 'number[]',
  1028: 'number[]',
  1016: 'string[]',
  1021: 'number[]',
  1022: 'number[]',
  1231: 'number[]', // numeric[]: pg-types parses its elements as floats
  1014: 'string[]',
  1015: 'string[]',
  1008: 'string[]',
  1009: 'string[]',
  1040: 'string[]',
  1041: 'string[]',
  651: 'string[]',
  2951: 'string[]',
  791: 'string[]',
  1183: 'string[]',
  1270: 'string[]',
  3907: 'string[]',
  1115: 'Date[]',
  1182: 'Date[]',
  1185: 'Date[]',
  1186: 'unknown', // interval: node-postgres' PostgresInterval
  1187: 'unknown[]',
};

/** An outer join: `LEFT JOIN` (its right side may be all nulls), or `RIGHT` / `FULL` (either side may). */
const OUTER_JOIN = /\b(LEFT|RIGHT|FULL)\s+(?:OUTER\s+)?JOIN\s+(?:LATERAL\s+)?/gi;
/** A relation named in a FROM or JOIN. */
const RELATION = /\b(?:FROM|JOIN)\s+(?:LATERAL\s+(?!\())?(?!LATERAL\b)([a-z_][a-z0-9_]*)\b(?!\s*\()/gi;

/** The text of the parenthesized group that opens at `text[open]`. */
function group(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return text.slice(open, i + 1);
  }
  return text.slice(open);
}

/**
 * Which tables' columns a statement may read as null although they are NOT
 * NULL: those on the right of a LEFT JOIN, the table itself or every relation
 * named in its subquery (wherever else they appear: a column is only ever
 * made more nullable than it is); every table for a RIGHT or FULL join, or
 * when a relation so named is not a table (a CTE, whose columns may be any
 * table's).
 */
async function nullableTables(client: Client, text: string): Promise<Set<number> | 'all'> {
  const names = new Set<string>();
  for (const m of text.matchAll(OUTER_JOIN)) {
    if (m[1].toUpperCase() !== 'LEFT') return 'all';
    const at = (m.index ?? 0) + m[0].length;
    if (text[at] === '(') for (const r of group(text, at).matchAll(RELATION)) names.add(r[1]);
    else names.add(/^[a-z_][a-z0-9_]*/i.exec(text.slice(at))?.[0] ?? '');
  }
  if (names.size === 0) return new Set();
  const { rows } = await client.query<{ oid: number | null }>('SELECT to_regclass(t)::oid AS oid FROM unnest($1::text[]) AS t', [
    [...names],
  ]);
  if (rows.some((r) => r.oid === null)) return 'all';
  return new Set(rows.map((r) => Number(r.oid)));
}

/** Whether each (table, column) read is NOT NULL in the schema. */
async function notNullColumns(client: Client, columns: DescribedColumn[]): Promise<Set<string>> {
  const read = columns.filter((c) => c.tableOid !== 0);
  if (read.length === 0) return new Set();
  const { rows } = await client.query<{ table_oid: number; column_number: number }>(
    `SELECT a.attrelid::int AS table_oid, a.attnum::int AS column_number
       FROM pg_attribute a JOIN unnest($1::oid[], $2::int2[]) AS c(table_oid, column_number)
         ON a.attrelid = c.table_oid AND a.attnum = c.column_number
      WHERE a.attnotnull`,
    [read.map((c) => c.tableOid), read.map((c) => c.columnNumber)],
  );
  return new Set(rows.map((r) => `${r.table_oid}.${r.column_number}`));
}

/** `CHECK ((status = ANY (ARRAY['active'::text, 'paused'::text])))`: the values a text column may hold. */
const ONE_OF = /^CHECK \(\("?\w+"? = ANY \(ARRAY\[((?:'(?:[^']|'')*'::text(?:, )?)+)\]\)\)\)$/;

/** The values each text column read may hold, when a CHECK constraint lists them: the column's type is their union. */
async function columnValues(client: Client, columns: DescribedColumn[]): Promise<Map<string, string[]>> {
  const read = columns.filter((c) => c.tableOid !== 0);
  const values = new Map<string, string[]>();
  if (read.length === 0) return values;
  const { rows } = await client.query<{ table_oid: number; column_number: number; def: string }>(
    `SELECT c.conrelid::int AS table_oid, c.conkey[1]::int AS column_number, pg_get_constraintdef(c.oid) AS def
       FROM pg_constraint c JOIN unnest($1::oid[], $2::int2[]) AS r(table_oid, column_number)
         ON c.conrelid = r.table_oid AND c.conkey = ARRAY[r.column_number]
      WHERE c.contype = 'c'`,
    [read.map((c) => c.tableOid), read.map((c) => c.columnNumber)],
  );
  for (const r of rows) {
    const list = ONE_OF.exec(r.def)?.[1];
    if (list)
      values.set(
        `${r.table_oid}.${r.column_number}`,
        [...list.matchAll(/'((?:[^']|'')*)'::text/g)].map((m) => m[1].replace(/''/g, "'")),
      );
  }
  return values;
}

/** The TypeScript type of every column of one statement. */
async function rowTypeOf(client: Client, text: string): Promise<Array<{ name: string; type: string }>> {
  const columns = await describeStatement(client, text);
  const notNull = await notNullColumns(client, columns);
  const oneOf = await columnValues(client, columns);
  const outer = await nullableTables(client, text);
  // node-postgres keeps the last of two columns with one name.
  const byName = new Map<string, string>();
  for (const c of columns) {
    const column = `${c.tableOid}.${c.columnNumber}`;
    const values = TS_OF_OID[c.typeOid] === undefined ? oneOf.get(column) : undefined;
    const type = values ? values.map((v) => `'${v.replace(/[\\']/g, '\\$&')}'`).join(' | ') : (TS_OF_OID[c.typeOid] ?? 'string');
    const fromTable = c.tableOid !== 0 && notNull.has(column);
    const nullable = !fromTable || outer === 'all' || outer.has(c.tableOid);
    byName.set(c.name, !nullable || type === 'unknown' ? type : `${type} | null`);
  }
  return [...byName].map(([name, type]) => ({ name, type }));
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** A property name as Prettier writes it. */
const key = (name: string) => (IDENTIFIER.test(name) ? name : `'${name.replace(/[\\']/g, '\\$&')}'`);

/** The generated file's text for these statements (name -> text), each described on its client's database (the key store's or the main one). */
export async function rowTypesSource(clientOf: (name: string) => Client, statements: ReadonlyMap<string, string>): Promise<string> {
  const lines: string[] = [];
  for (const name of [...statements.keys()].sort()) {
    const text = statements.get(name) as string;
    let columns: Array<{ name: string; type: string }>;
    try {
      columns = await rowTypeOf(clientOf(name), text);
    } catch (e) {
      throw new Error(`statement ${name} cannot be described: ${(e as Error).message}`, { cause: e });
    }
    if (columns.length === 0) {
      lines.push(`  ${key(name)}: Record<string, never>;`);
      continue;
    }
    lines.push(`  ${key(name)}: {`);
    for (const c of columns) lines.push(`    ${key(c.name)}: ${c.type};`);
    lines.push('  };');
  }
  return [
    "// Generated from PostgreSQL's description of every declared statement (libs/persistence/src/queries/row-types/generate.ts):",
    '// do not edit. After changing a statement or a migration, regenerate with `npm run db:row-types`.',
    '/** The rows of each declared statement (`statement(name, text)`), by its name, as node-postgres returns them. */',
    'export interface RowTypes {',
    ...lines,
    '}',
    '',
  ].join('\n');
}

/** Every declared statement: the repositories' modules declare theirs when loaded. */
export function allStatements(): ReadonlyMap<string, string> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('../../repositories');
  return declaredStatements();
}

/** Migrates the database at `url` (a scratch one) and answers the generated file's text for every declared statement. */
export async function generateRowTypes(url: string): Promise<string> {
  const keyStore = keyStoreUrl(url, undefined);
  // A scratch database holds no person key to convert: any secret migrates it.
  await migrateDatabase(url, personKeySecret(randomBytes(32).toString('hex')), keyStore);
  const main = new Client({ connectionString: url });
  const keys = new Client({ connectionString: keyStore });
  await main.connect();
  try {
    await keys.connect();
    try {
      return await rowTypesSource((name) => (runsOnKeyStore(name) ? keys : main), allStatements());
    } finally {
      await keys.end();
    }
  } finally {
    await main.end();
  }
}

/** Writes row-types.generated.ts. */
export async function writeRowTypes(url: string): Promise<void> {
  writeFileSync(ROW_TYPES_FILE, await generateRowTypes(url));
}
