import { createHash } from 'node:crypto';
import type { Client, Pool, PoolClient } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { DayPartitions, KEPT_DAY, perDay } from '../partitions/partition-days';
import type { Queryable } from './queryable';
import type { RowTypes } from './row-types.generated';

/**
 * A statement of a repository, declared once under a name of its own
 * (`id`), and prepared once per connection under a name derived from its
 * text (`name`). Each execution then sends only Bind/Execute: the text is not
 * sent, parsed or analysed again, and PostgreSQL reuses a plan
 * (bench/results/performance-history.md, "What the code does for speed"). Only constant texts may be
 * declared (a module-level `const`): a text built per call would prepare a
 * new statement on every connection each time.
 *
 * Its rows are typed by `RowTypes[id]`, which PostgreSQL itself describes
 * (row-types.generated.ts, written by `npm run db:row-types`; docs/decisions.md,
 * "Row types from PostgreSQL's description of each statement").
 */
export interface Statement<N extends string = string> {
  readonly id: N;
  readonly name: string;
  readonly text: string;
}

/** The rows of statement `N` as node-postgres returns them; unknown for a name not yet described (regenerate). */
export type RowOf<N extends string> = N extends keyof RowTypes ? RowTypes[N] : unknown;

/**
 * The rows of statement `N` with its json columns typed as the documents the
 * statement builds (`D`): PostgreSQL describes a json column only as json,
 * and the statement's text alone says what is in it.
 */
export type WithDocuments<N extends keyof RowTypes, D extends Partial<Record<keyof RowTypes[N], unknown>>> = Omit<RowTypes[N], keyof D> & D;

/**
 * A computed column the statement always fills: PostgreSQL describes every
 * computed column as nullable (it cannot tell a COALESCE or a CASE with an
 * ELSE from any other), so the mapping checks it.
 */
export function filled<T>(value: T | null, column: string): T {
  if (value === null) throw new Error(`${column} was null`);
  return value;
}

/** Every declared statement's text by its name: what the row types are generated from. */
const declared = new Map<string, string>();
/** The names of the statements that run on the key store's database (keyStoreStatement). */
const onKeyStore = new Set<string>();

/** The statements declared so far (each module declares its own when it is loaded). */
export function declaredStatements(): ReadonlyMap<string, string> {
  return declared;
}

/** Whether statement `id` runs on the key store's database (its row type is described there). */
export function runsOnKeyStore(id: string): boolean {
  return onKeyStore.has(id);
}

function declare(id: string, text: string): void {
  const before = declared.get(id);
  if (before !== undefined && before !== text) throw new Error(`statement ${id} is declared twice, with different texts`);
  declared.set(id, text);
}

function preparedName(text: string): string {
  return `lr_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
}

export function statement<N extends string>(id: N, text: string): Statement<N> {
  declare(id, text);
  return { id, name: preparedName(text), text };
}

/** A statement of the key store's database (docs/security.md): declared and prepared as `statement`, described on that database. */
export function keyStoreStatement<N extends string>(id: N, text: string): Statement<N> {
  onKeyStore.add(id);
  return statement(id, text);
}

/**
 * A statement whose text names the day partitions of the search it is about
 * (perDay): made once per day, declared once. Its rows do not depend on the
 * day; the text declared (and described) is the kept partition's.
 */
export function statementPerDay<N extends string>(id: N, make: (on: DayPartitions) => string): (day: string) => Statement<N> {
  const byDay = perDay((on) => {
    const text = make(on);
    return { id, name: preparedName(text), text };
  });
  declare(id, byDay(KEPT_DAY).text);
  return byDay;
}

/** A connection to run on: the pool, one client of it holding a transaction, or a client of its own (a bulk load). */
export type Connection = Pool | PoolClient | Client;

/** The pg pool under a TypeORM data source (one pool per process: TypeORM's own queries and these share it). */
export function poolOf(ds: DataSource): Pool {
  return (ds.driver as PostgresDriver).master as Pool;
}

/**
 * Where a Queryable's statements go: a data source's pool, or the client of
 * the transaction an entity manager holds (its query runner is connected for
 * the transaction's whole life).
 */
export function connectionOf(db: Queryable): Connection {
  if (db instanceof DataSource) return poolOf(db);
  // TypeORM keeps the runner's pg client protected; a transaction's statements must go to that client.
  const runner = (db as EntityManager).queryRunner as unknown as { isReleased: boolean; databaseConnection?: PoolClient } | undefined;
  if (runner && !runner.isReleased && runner.databaseConnection) return runner.databaseConnection;
  return poolOf((db as EntityManager).connection);
}

/**
 * Runs a declared statement with its parameters and answers its rows.
 * node-postgres is called directly (not through TypeORM's query runner): it is
 * the one client that can name a statement, and TypeORM's per-query runner
 * and event broadcast cost more than the statement on the hot paths.
 */
export async function run<N extends string>(
  db: Queryable | Connection,
  s: Statement<N>,
  values: readonly unknown[] = [],
): Promise<RowOf<N>[]> {
  const target = isConnection(db) ? db : connectionOf(db);
  const result = await target.query({ name: s.name, text: s.text, values: values as unknown[] });
  return result.rows as RowOf<N>[];
}

function isConnection(db: Queryable | Connection): db is Connection {
  return !(db instanceof DataSource) && !(db instanceof EntityManager);
}

/**
 * node-postgres' own serialization of a parameter (the text its Bind message
 * would carry: arrays as array literals, objects as JSON, dates with their
 * offset). Not in its typings; pinned with pg in package-lock.json.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- pg exports no module path for its utils; require reaches the file itself.
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (v: unknown) => string | Buffer | null };

/**
 * A parameter as an SQL literal, for a statement sent with the simple
 * protocol: exactly the text node-postgres would bind, quoted as its
 * escapeLiteral quotes (quotes and backslashes doubled, an E prefix when a
 * backslash was, so any text is one literal). PostgreSQL then reads it with
 * the parameter's type, as it reads a bound parameter.
 */
export function literal(v: unknown): string {
  const text = prepareValue(v);
  if (text === null) return 'NULL';
  if (typeof text !== 'string') throw new Error('binary parameters cannot be inlined');
  return quoteLiteral(text);
}

/**
 * node-postgres' escapeLiteral, character for character, without its cost:
 * it appends one character at a time, a string object per character, which
 * made the literals of a transaction's parameters (a search's result list, a
 * lead) the largest allocation of a partner answer's merge. A unit test holds
 * the two to the same output.
 */
export function quoteLiteral(text: string): string {
  const quoted = `'${text.replace(QUOTE, "''")}'`;
  return text.includes('\\') ? ` E${quoted.replace(BACKSLASH, '\\\\')}` : quoted;
}
const QUOTE = /'/g;
const BACKSLASH = /\\/g;

declare const ROWS: unique symbol;

/** `EXECUTE` of a declared statement (Transaction.execute), as text for begin or commit: it carries the statement's row type. */
export type Execution<N extends string = string> = string & { readonly [ROWS]?: N };

/** The rows of the last of several statements: a declared statement's (an Execution), else unknown. */
export type LastRows<S extends readonly string[]> = S extends readonly [...string[], infer L]
  ? L extends Execution<infer N>
    ? string extends N
      ? unknown
      : RowOf<N>
    : unknown
  : unknown;

/** Statements made executable by name (SQL PREPARE) on each connection, so a simple-protocol string can EXECUTE them. */
const executable = new WeakMap<PoolClient, Set<string>>();

/**
 * One transaction on one client of the pool, in as few round trips as the
 * protocol allows. node-postgres sends one statement per round trip when it
 * binds parameters; the simple protocol carries several statements in one,
 * but no parameters. So `begin` sends BEGIN with the statements that open the
 * work, and `commit` the statements that end it with COMMIT, each in one
 * round trip; a declared statement goes in them as `EXECUTE name(literals)`
 * (`execute`), still prepared once per connection and planned as a
 * prepared statement. Each statement of such a string takes its own
 * snapshot, as separate statements do.
 */
export class Transaction {
  /** Whether a BEGIN was sent and neither COMMIT nor ROLLBACK has ended it. */
  open = false;

  constructor(readonly client: PoolClient) {}

  /** BEGIN, then `statements`, in one round trip; the rows of the last one. */
  async begin<S extends readonly string[]>(...statements: S): Promise<LastRows<S>[]> {
    this.open = true;
    return lastRows<LastRows<S>>(await this.client.query(['BEGIN', ...statements].join(';\n')));
  }

  /** `statements`, then COMMIT, in one round trip; the rows of the last statement before COMMIT. An error in one leaves the transaction open (aborted): nothing is committed. */
  async commit<S extends readonly string[]>(...statements: S): Promise<LastRows<S>[]> {
    const results = await this.client.query([...statements, 'COMMIT'].join(';\n'));
    this.open = false;
    const all = Array.isArray(results) ? results : [results];
    return (all[all.length - 2]?.rows ?? []) as LastRows<S>[];
  }

  /**
   * A declared statement with its parameters bound, then COMMIT: two round
   * trips. For a statement that carries contact data: PostgreSQL logs the
   * text of a statement that fails, and a literal is part of the text, so
   * data that must never reach a log is bound, never inlined (`execute`).
   * The rows of the statement; an error leaves the transaction open (aborted).
   */
  async commitBound<N extends string>(s: Statement<N>, values: readonly unknown[]): Promise<RowOf<N>[]> {
    const rows = await run(this.client, s, values);
    await this.client.query('COMMIT');
    this.open = false;
    return rows;
  }

  /**
   * `EXECUTE` of a declared statement with these parameters inlined as
   * literals, for `begin` or `commit` (prepared on this connection first if it
   * is not yet). Only for parameters that may appear in PostgreSQL's log (ids,
   * hashes, times, amounts, catalog text): see commitBound.
   */
  async execute<N extends string>(s: Statement<N>, values: readonly unknown[]): Promise<Execution<N>> {
    const name = `lx_${s.name.slice(3)}`;
    let names = executable.get(this.client);
    if (!names) executable.set(this.client, (names = new Set()));
    if (!names.has(name)) {
      // PREPARE is not transactional, and is sent alone: once it succeeded, the name exists on this connection.
      await this.client.query(`PREPARE ${name} AS ${s.text}`);
      names.add(name);
    }
    return values.length === 0 ? `EXECUTE ${name}` : `EXECUTE ${name}(${values.map(literal).join(', ')})`;
  }
}

function lastRows<T>(results: unknown): T[] {
  const all = (Array.isArray(results) ? results : [results]) as Array<{ rows: T[] }>;
  return all[all.length - 1].rows;
}

/**
 * Runs `work` in a transaction on one client: COMMIT after it unless it
 * committed itself, ROLLBACK on any error. A client whose ROLLBACK fails is
 * destroyed rather than returned to the pool.
 */
export async function inTransaction<T>(pool: Pool, work: (tx: Transaction) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const tx = new Transaction(client);
  let broken: Error | undefined;
  // A connection that fails while checked out (PostgreSQL gone, the backend killed) emits 'error' on its client; the
  // statement in flight, if any, rejects with it. Unheard, that event would end the process; heard, the client is destroyed.
  const onError = (e: Error) => {
    broken = e;
  };
  client.on('error', onError);
  try {
    const result = await work(tx);
    if (tx.open) {
      await client.query('COMMIT');
      tx.open = false;
    }
    return result;
  } catch (e) {
    if (tx.open) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackFailed) {
        broken = rollbackFailed as Error;
      }
    }
    throw e;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
